/* The scenario keys (schema.h): the table, look-ups over it, and the
 * markdown reference that docs/configuration.md carries. A default or a key
 * list written anywhere else would drift from this table; the unit tests
 * (test_schema.c) and the docs check (tests/cli/check_schema_docs.py) hold
 * the rest of the tree to it. */
#include "schema.h"

#include <stddef.h>
#include <string.h>

#include "base/scenario.h"
#include "models.h"
#include "yamltree.h"

/* ---- the table ------------------------------------------------------------ */

#define MEMBER_SIZE(type, member) sizeof(((type *)0)->member)
#define FIELD(at, type, member, ctype) \
  .field = {THR_AT_##at, THR_C_##ctype, offsetof(type, member), MEMBER_SIZE(type, member)}
#define SC(member, ctype) FIELD(SCENARIO, thr_scenario, member, ctype)
#define PRM(member, ctype) FIELD(PARAMS, thr_params, member, ctype)
#define BLK(member, ctype) FIELD(BLOCK, thr_block, member, ctype)
#define STG(member, ctype) FIELD(STAGE, thr_stage_def, member, ctype)
#define SRC(member, ctype) FIELD(SOURCE, thr_source_def, member, ctype)
#define FRM(member, ctype) FIELD(FORMATION, thr_formation_def, member, ctype)
#define VALUE(type, ctype) .field = {THR_AT_VALUE, THR_C_##ctype, 0, sizeof(type)}

/* agents[] keys that only some layouts take */
#define GRID (1u << THR_LAYOUT_GRID)
#define RANDOM (1u << THR_LAYOUT_RANDOM)
#define DISK (1u << THR_LAYOUT_DISK)
#define ELLIPSE (1u << THR_LAYOUT_ELLIPSE)
#define CIRCLE (1u << THR_LAYOUT_CIRCLE)
#define POLYGON_LAYOUT (1u << THR_LAYOUT_POLYGON)
#define POINTS_LAYOUT (1u << THR_LAYOUT_POINTS)
#define ALL_LAYOUTS (GRID | RANDOM | DISK | ELLIPSE | CIRCLE | POLYGON_LAYOUT | POINTS_LAYOUT)

/* stages[] keys that only some kinds take */
#define WAYPOINT (1u << THR_STAGE_WAYPOINT)
#define QUEUE (1u << THR_STAGE_QUEUE)
#define WAITING (1u << THR_STAGE_WAITING)

/* exits[] keys that only segment exits take (the forms: polygon, segment) */
#define SEGMENT_EXIT (1u << 1)

#define MAP THR_KEY_MAP
#define LIST THR_KEY_LIST
#define NUMBER THR_KEY_NUMBER
#define INTEGER THR_KEY_INTEGER
#define BOOL THR_KEY_BOOL
#define STRING THR_KEY_STRING
#define POINT THR_KEY_POINT
#define POINTS THR_KEY_POINTS
#define CHOICE THR_KEY_CHOICE
#define NUMBER_OR_MAP THR_KEY_NUMBER_OR_MAP
#define NUMBER_OR_POINT THR_KEY_NUMBER_OR_POINT
#define GOAL THR_KEY_GOAL
#define NAMES THR_KEY_NAMES
#define WEIGHTS THR_KEY_WEIGHTS

#define GT0 THR_RANGE_GT0
#define GE0 THR_RANGE_GE0
#define UNIT THR_RANGE_UNIT
#define STIFF THR_RANGE_STIFF
#define GE1 THR_RANGE_GE1
#define NONEMPTY THR_RANGE_NONEMPTY

#define REQUIRED THR_KEY_REQUIRED
#define ONE_OF THR_KEY_ONE_OF
#define PROPERTY THR_KEY_PROPERTY

const thr_key thr_schema[] = {
    /* top level */
    {.path = "name", .type = STRING, .range = NONEMPTY, SC(name, CHARS), .def_note = "file name without `.yaml`",
     .meaning = "scenario name; used for the default output directory"},
    {.path = "description", .type = STRING, .def_note = "empty", SC(description, CHARS),
     .meaning = "free text, printed by `throng check`"},
    {.path = "seed", .type = INTEGER, .range = GE0, .def = "1", SC(seed, U64),
     .meaning = "seed of the counter-based random numbers (placement jitter, speeds, radii, masses, goal jitter)"},

    {.path = "world", .type = MAP, .def_note = "the walkable area's bounding box grown by 1 m",
     .meaning = "the simulated rectangle; required without `geometry`"},
    {.path = "world.min", .type = POINT, .flags = REQUIRED, SC(world_min, VEC2), .meaning = "lower-left corner"},
    {.path = "world.max", .type = POINT, .flags = REQUIRED, SC(world_max, VEC2),
     .meaning = "upper-right corner; each coordinate must exceed `min`'s"},
    {.path = "world.z", .type = MAP, .def_note = "none: a 2D scenario",
     .meaning = "floor and ceiling of a 3D scenario (seed paper 003, docs/3d.md): agents are spheres with an "
                "altitude; walls stand as vertical prisms"},
    {.path = "world.z.min", .type = NUMBER, .flags = REQUIRED, PRM(z_min, FLOAT), .meaning = "floor altitude [m]"},
    {.path = "world.z.max", .type = NUMBER, .flags = REQUIRED, PRM(z_max, FLOAT),
     .meaning = "ceiling altitude [m]; above `min` by more than the largest agent diameter"},

    {.path = "geometry", .type = MAP, .meaning = "the walkable area; walls follow from it"},
    {.path = "geometry.walkable", .type = STRING, .flags = ONE_OF,
     .meaning = "WKT `POLYGON` or `MULTIPOLYGON` in metres (Shapely's convention: each polygon its outer ring, "
                "then its holes; rings closed)"},
    {.path = "geometry.walkable_file", .type = STRING, .flags = ONE_OF,
     .meaning = "a file holding that WKT, relative to the scenario file's directory"},

    {.path = "time", .type = MAP, .meaning = "time step and run length"},
    {.path = "time.dt", .type = NUMBER, .range = GT0, .def = "1/48", PRM(dt, FLOAT), .meaning = "time step Δt"},
    {.path = "time.steps", .type = INTEGER, .range = GE0, .def = "1000", SC(steps, LONG),
     .meaning = "steps a run takes (`throng run --steps` overrides)"},

    {.path = "solver", .type = MAP, .meaning = "PBD iterations"},
    {.path = "solver.stability_iterations", .type = INTEGER, .range = GE0, .def = "1",
     PRM(stability_iterations, INT),
     .meaning = "contact passes on the start-of-step positions (Algorithm 1 lines 9–15)"},
    {.path = "solver.iterations", .type = INTEGER, .range = GE0, .def = "6", PRM(solver_iterations, INT),
     .meaning = "constraint iterations (lines 16–21)"},
    {.path = "solver.omega", .type = NUMBER, .range = GT0, .def = "1.2", PRM(omega, FLOAT),
     .meaning = "Jacobi delta-averaging coefficient ω: Δx_i = ω/n_i Σ Δx_ij"},

    {.path = "model", .type = MAP, .meaning = "the model preset, blending, collision radius, clamps, goals"},
    {.path = "model.preset", .type = CHOICE, .choices = "paper, pedestrian", .def = "paper", SC(preset, INT),
     .meaning = "defaults of the model's keys: the paper's (Weiss et al. 2017), or human-sized pedestrians with "
                "the speed–density relation (table \"Model presets\" below); keys the scenario gives win"},
    {.path = "model.kind", .type = CHOICE, .choices = THR_MODEL_CHOICES, .def = "pbd", PRM(model_kind, INT),
     .meaning = "position-based dynamics (seed 000), ORCA velocity obstacles (seed 002, docs/orca.md; `orca` "
                "keys), the power-law force model 000 compares with (Karamouzas et al. 2014, docs/powerlaw.md; "
                "`powerlaw` keys), or 3D ORCA, 003's comparator (RVO2-3D, docs/3d.md; `rvo3d` keys; needs world.z)"},
    {.path = "model.alpha", .type = NUMBER, .range = UNIT, .def = "0.0385", PRM(alpha, FLOAT),
     .meaning = "velocity blending, eq. (1)"},
    {.path = "model.radius_scale", .type = NUMBER, .range = GE1, .def = "1.05", PRM(radius_scale, FLOAT),
     .meaning = "collision checks use radii expanded by this factor"},
    {.path = "model.max_speed", .type = NUMBER, .range = GE0, .def = "2.5", PRM(max_speed, FLOAT),
     .meaning = "speed clamp (§4.6); 0 disables"},
    {.path = "model.max_acceleration", .type = NUMBER, .range = GE0, .def = "0", PRM(max_accel, FLOAT),
     .meaning = "acceleration clamp |Δv|/Δt (§4.6); 0 disables"},
    {.path = "model.arrive_radius", .type = NUMBER, .range = GT0, .def = "0.5", PRM(arrive_radius, FLOAT),
     .meaning = "a point goal counts as reached within this distance"},

    {.path = "headway", .type = MAP,
     .meaning = "speed–density relation: the time-gap law in the planning step (docs/decisions/0004)"},
    {.path = "headway.enabled", .type = BOOL, .def = "false", PRM(headway_on, INT),
     .meaning = "limit the preferred speed v0 to v0 (1 − exp(−(gap − min_gap)/(v0 time_gap))), gap = the free "
                "distance to the nearest agent ahead on the agent's path (below)"},
    {.path = "headway.time_gap", .type = NUMBER, .range = GT0, .def = "1.0", PRM(hw_time_gap, FLOAT),
     .meaning = "time gap T [s]: lower walks closer and faster in a crowd"},
    {.path = "headway.min_gap", .type = NUMBER, .range = GE0, .def = "0", PRM(hw_min_gap, FLOAT),
     .meaning = "gap between bodies at which an agent stands still [m]"},
    {.path = "headway.anticipation", .type = NUMBER, .range = GE0, .def = "0", PRM(hw_anticipation, FLOAT),
     .meaning = "each neighbour is taken where its velocity carries it in this time [s]: one walking out of the "
                "agent's path (at a merge, round a corner) no longer holds it up"},
    {.path = "headway.turn_anticipation", .type = NUMBER, .range = GE0, .def = "0", PRM(hw_turn_anticipation, FLOAT),
     .meaning = "a neighbour whose way turns off the agent's is also taken where its velocity carries it in this "
                "time, in full from 46° on (none for one heading the same way) [s]: round a corner, the one who "
                "has turned ahead no longer holds the agent up"},
    {.path = "headway.cross_width", .type = NUMBER, .range = UNIT, .def = "1", PRM(hw_cross_width, FLOAT),
     .meaning = "a neighbour heading across the agent's way counts within this share of `width` (the share grows "
                "to 1 as their ways align): agents whose ways cross at a corner or a merge slip past each "
                "other's shoulders instead of following them"},
    {.path = "headway.width", .type = NUMBER, .range = STIFF, .def = "1.0", PRM(hw_width, FLOAT),
     .meaning = "a neighbour ahead counts when its centre lies within width × (sum of the two radii) of the "
                "agent's path; below 1, one that only grazes the agent's shoulder is passed, not followed"},
    {.path = "headway.range", .type = NUMBER, .range = GT0, .def = "2.0", PRM(hw_range, FLOAT),
     .meaning = "agents further than this (centre to centre) never slow an agent [m]"},
    {.path = "headway.sidestep", .type = NUMBER, .range = GE0, .def = "0", PRM(hw_sidestep, FLOAT),
     .meaning = "an agent held up by the one ahead steps 30° to the side where the way is clear for this "
                "distance and it makes more progress (left first; never into a wall) [m]; 0 = never. People "
                "fill a corridor's width after a corner or a merge this way"},

    {.path = "contact", .type = MAP, .meaning = "frictional contact (§4.2)"},
    {.path = "contact.enabled", .type = BOOL, .def = "true", PRM(contact_on, INT),
     .meaning = "agent–agent contact constraint, eq. (2)"},
    {.path = "contact.stiffness", .type = NUMBER, .range = STIFF, .def = "1.0", PRM(contact_stiffness, FLOAT),
     .meaning = "stiffness of the contact constraint"},
    {.path = "contact.friction", .type = BOOL, .def = "true", PRM(friction_on, INT),
     .meaning = "static and kinetic friction (Macklin et al. 2014)"},
    {.path = "contact.static_friction", .type = NUMBER, .range = GE0, .def = "0.21", PRM(mu_static, FLOAT),
     .meaning = "μ_s"},
    {.path = "contact.kinetic_friction", .type = NUMBER, .range = GE0, .def = "0.10", PRM(mu_kinetic, FLOAT),
     .meaning = "μ_k"},

    {.path = "long_range", .type = MAP,
     .meaning = "long-range collision constraint (§4.4), the paper's \"LR\" column"},
    {.path = "long_range.enabled", .type = BOOL, .def = "true", PRM(longrange_on, INT),
     .meaning = "the long-range collision constraint"},
    {.path = "long_range.stiffness", .type = NUMBER, .range = GE0, .def = "0.24", PRM(lr_stiffness, FLOAT),
     .meaning = "k in k·exp(−τ̂²/τ0)"},
    {.path = "long_range.tau0", .type = NUMBER, .range = GT0, .def = "20", PRM(lr_tau0, FLOAT),
     .meaning = "only 0 < τ < τ0 counts [s]"},
    {.path = "long_range.radius", .type = NUMBER, .range = GT0, .def = "3.0", PRM(lr_radius, FLOAT),
     .meaning = "neighbours considered (start-of-step distance) [m]"},
    {.path = "long_range.response", .type = CHOICE, .choices = "direct, projected", .def = "direct",
     PRM(lr_response, INT),
     .meaning = "the correction of the colliding positions x̃ moves x* as it is (the paper) or projected onto x*, "
                "scaled by Δt/τ̃ (docs/paper-map.md)"},

    {.path = "avoidance", .type = MAP, .meaning = "avoidance model (§4.5), the paper's \"A\" column"},
    {.path = "avoidance.enabled", .type = BOOL, .def = "false", PRM(avoidance_on, INT),
     .meaning = "the avoidance model (tangential part of the long-range response)"},
    {.path = "avoidance.stiffness", .type = NUMBER, .range = GE0, .def = "0.24", PRM(av_stiffness, FLOAT),
     .meaning = "k in k·exp(−τ̂²/τ0)"},
    {.path = "avoidance.tau0", .type = NUMBER, .range = GT0, .def = "20", PRM(av_tau0, FLOAT),
     .meaning = "only 0 < τ < τ0 counts [s]"},
    {.path = "avoidance.radius", .type = NUMBER, .range = GT0, .def = "3.0", PRM(av_radius, FLOAT),
     .meaning = "neighbours considered (start-of-step distance) [m]"},
    {.path = "avoidance.response", .type = CHOICE, .choices = "direct, projected", .def = "projected",
     PRM(av_response, INT), .meaning = "as long_range.response, for the avoidance model"},
    {.path = "avoidance.plane", .type = CHOICE, .choices = "tangent, horizontal, vertical, auto", .def = "tangent",
     PRM(av_plane, INT),
     .meaning = "3D scenarios: the response along the tangential displacement (§4.5), across a vertical separation "
                "plane (side-step at the same altitude), a horizontal one (pass over or under), or per agent by "
                "where its neighbours are (docs/3d.md)"},
    {.path = "avoidance.auto_radius", .type = NUMBER, .range = GT0, .def = "2.0", PRM(av_auto_radius, FLOAT),
     .meaning = "`plane: auto`: neighbours within this 3D distance decide an agent's plane [m]; at most `radius`"},

    {.path = "walls", .type = MAP, .meaning = "walls and obstacles (§4.7)"},
    {.path = "walls.enabled", .type = BOOL, .def = "true", PRM(walls_on, INT),
     .meaning = "contact of agents with obstacles (infinite mass)"},
    {.path = "walls.stiffness", .type = NUMBER, .range = STIFF, .def = "1.0", PRM(wall_stiffness, FLOAT),
     .meaning = "stiffness of wall contact"},
    {.path = "walls.clearance", .type = NUMBER, .range = GE0, .def = "0", PRM(wall_clearance, FLOAT),
     .meaning = "room agents keep between their body and a wall or door frame [m] (2D): the boundary layer of "
                "the SFPE hydraulic model, which narrows every door and corridor to its effective width"},

    {.path = "xsph", .type = MAP, .meaning = "XSPH cohesion (§4.3)"},
    {.path = "xsph.enabled", .type = BOOL, .def = "true", PRM(xsph_on, INT),
     .meaning = "XSPH viscosity on the new velocities"},
    {.path = "xsph.h", .type = NUMBER, .range = GT0, .def = "3.5", PRM(xsph_h, FLOAT),
     .meaning = "Poly6 kernel support radius [m] (the paper's 7 for radius-1 agents, scaled)"},
    {.path = "xsph.c", .type = NUMBER, .range = GE0, .def = "0.1", PRM(xsph_c, FLOAT),
     .meaning = "viscosity coefficient (see `docs/paper-map.md` for why not the paper's 217)"},

    {.path = "orca", .type = MAP, .meaning = "the ORCA model (`model.kind: orca`; seed paper 002, docs/orca.md)"},
    {.path = "orca.neighbor_dist", .type = NUMBER, .range = GT0, .def = "3.0", PRM(orca.range, FLOAT),
     .meaning = "neighbours closer than this (centre distance at the step's start) are avoided [m]"},
    {.path = "orca.max_neighbors", .type = INTEGER, .range = GT0, .def = "10", PRM(orca.neighbors, INT),
     .meaning = "the nearest this many of them, at most 16 (ties by id)"},
    {.path = "orca.time_horizon", .type = NUMBER, .range = GT0, .def = "2.0", PRM(orca.horizon, FLOAT),
     .meaning = "τ: collisions within this time are avoided [s]"},
    {.path = "orca.time_horizon_obst", .type = NUMBER, .range = GT0, .def = "1.0", PRM(orca.horizon_obst, FLOAT),
     .meaning = "τ_o: collisions with obstacles within this time are avoided [s]; the nearest 32 edges within "
                "τ_o · max speed + radius count"},
    {.path = "orca.responsibility", .type = NUMBER, .range = STIFF, .def = "0.5", PRM(orca.share, FLOAT),
     .meaning = "each agent's share of the avoidance: 1/2 reciprocal (eq. 3), 1 all of it (eq. 4)"},

    {.path = "powerlaw", .type = MAP,
     .meaning = "the power-law model (`model.kind: powerlaw`; Karamouzas, Skinner & Guy 2014, docs/powerlaw.md)"},
    {.path = "powerlaw.k", .type = NUMBER, .range = GT0, .def = "1.5", PRM(powerlaw.k, FLOAT),
     .meaning = "energy scale k of E(τ) = k/τ² e^(−τ/τ0), per unit mass [m²/s²]"},
    {.path = "powerlaw.tau0", .type = NUMBER, .range = GT0, .def = "3", PRM(powerlaw.tau0, FLOAT),
     .meaning = "interaction time horizon τ0 [s]"},
    {.path = "powerlaw.xi", .type = NUMBER, .range = GT0, .def = "0.54", PRM(powerlaw.xi, FLOAT),
     .meaning = "relaxation time ξ of the driving force (v_pref − v)/ξ [s]"},
    {.path = "powerlaw.range", .type = NUMBER, .range = GT0, .def = "10", PRM(powerlaw.range, FLOAT),
     .meaning = "agents and walls closer than this interact [m]"},
    {.path = "powerlaw.max_accel", .type = NUMBER, .range = GE0, .def = "20", PRM(powerlaw.max_accel, FLOAT),
     .meaning = "the total acceleration is capped at this [m/s²]; 0: no cap"},

    {.path = "rvo3d", .type = MAP,
     .meaning = "3D ORCA (RVO2-3D's algorithm; `model.kind: rvo3d`, 3D scenarios only; seed paper 003's "
                "comparator, docs/3d.md)"},
    {.path = "rvo3d.neighbor_dist", .type = NUMBER, .range = GT0, .def = "3.0", PRM(rvo3d.range, FLOAT),
     .meaning = "neighbours closer than this (3D centre distance at the step's start) are avoided [m]"},
    {.path = "rvo3d.max_neighbors", .type = INTEGER, .range = GT0, .def = "10", PRM(rvo3d.neighbors, INT),
     .meaning = "the nearest this many of them, at most 16 (ties by id)"},
    {.path = "rvo3d.time_horizon", .type = NUMBER, .range = GT0, .def = "2.0", PRM(rvo3d.horizon, FLOAT),
     .meaning = "τ: collisions within this time are avoided [s]"},
    {.path = "rvo3d.responsibility", .type = NUMBER, .range = STIFF, .def = "0.5", PRM(rvo3d.share, FLOAT),
     .meaning = "each agent's share of the avoidance: 1/2 reciprocal, 1 all of it"},

    {.path = "forces", .type = MAP,
     .meaning = "the ORCA model's physical forces (002 §3.3, docs/orca.md): collisions, pushing, and the forces "
                "inferred from how agents slow down or resist, handed on to neighbours the next step; their sum "
                "is a half-plane of the linear program"},
    {.path = "forces.enabled", .type = BOOL, .def = "true", PRM(orca.forces_on, INT),
     .meaning = "false: pure ORCA (the paper's \"without physical interaction\")"},
    {.path = "forces.restitution", .type = NUMBER, .range = UNIT, .def = "0", PRM(orca.restitution, FLOAT),
     .meaning = "coefficient of restitution ε of the collision impulse (eq. 6); people do not bounce"},
    {.path = "forces.push", .type = CHOICE, .choices = "never, always, when_slow", .def = "never",
     PRM(orca.push_mode, INT),
     .meaning = "when agents push (eq. 5) outside behaviour states: never, always, or after `slow_time` slower "
                "than `slow_speed`"},
    {.path = "forces.push_gain", .type = NUMBER, .range = GE0, .def = "2.0", PRM(orca.push_gain, FLOAT),
     .meaning = "κ_p: a pusher's total push f_p = κ_p · mass · speed [1/s], shared among the agents it pushes"},
    {.path = "forces.push_speed", .type = CHOICE, .choices = "current, preferred", .def = "current",
     PRM(orca.push_speed, INT), .meaning = "the speed in f_p: the pusher's current or preferred speed"},
    {.path = "forces.slow_speed", .type = NUMBER, .range = GE0, .def = "0.3", PRM(orca.slow_speed, FLOAT),
     .meaning = "`when_slow` pushers push below this speed [m/s] ..."},
    {.path = "forces.slow_time", .type = NUMBER, .range = GE0, .def = "1.0", PRM(orca.slow_time, FLOAT),
     .meaning = "... after this long [s]"},
    {.path = "forces.k_thresh", .type = NUMBER, .range = UNIT, .def = "0.5", PRM(orca.k_thresh, FLOAT),
     .meaning = "share of an inferred force handed on (eqs. 8-9); below 1, so that a push fades as it travels"},
    {.path = "forces.theta_d", .type = NUMBER, .range = GE0, .def = "30", PRM(orca.theta_d, FLOAT),
     .meaning = "deceleration angle θ_d [degrees]: slowing within it of straight backwards is a deceleration "
                "force, handed to the neighbours within it ahead"},
    {.path = "forces.theta_r", .type = NUMBER, .range = GE0, .def = "45", PRM(orca.theta_r, FLOAT),
     .meaning = "resistive angle θ_r [degrees]: the resistance to a force goes to the neighbours within it of "
                "the force's velocity"},
    {.path = "forces.interact_margin", .type = NUMBER, .range = GE0, .def = "0.1", PRM(orca.interact_margin, FLOAT),
     .meaning = "pushes and inferred forces reach neighbours this far beyond contact [m]"},
    {.path = "forces.contact_margin", .type = NUMBER, .range = GE0, .def = "0.02", PRM(orca.contact_margin, FLOAT),
     .meaning = "collision impulses act this far beyond contact [m]"},
    {.path = "forces.inferred_sign", .type = CHOICE, .choices = "reaction, literal", .def = "reaction",
     PRM(orca.inferred_sign, INT),
     .meaning = "neighbours get the reaction −F/N of an inferred force (a push travels forward), or +F/N as "
                "002 prints it"},

    {.path = "behaviors", .type = MAP,
     .meaning = "behaviour state machines of ORCA agents (002 §4, docs/orca.md): states are parameter sets, "
                "transitions switch them"},
    {.path = "behaviors.center", .type = POINT, .def_note = "[0, 0]", PRM(orca.circ_center, VEC2),
     .meaning = "centre that `circulate` states walk around counter-clockwise"},
    {.path = "behaviors.start", .type = POINT, .def_note = "centre + [1, 0]", PRM(orca.circ_start, VEC2),
     .meaning = "a circuit is counted when an agent crosses the ray from the centre through this point"},
    {.path = "behaviors.radius", .type = NUMBER, .range = GE0, .def = "0", PRM(orca.circ_radius, FLOAT),
     .meaning = "circulating agents are drawn towards this distance from the centre [m]; 0: no pull"},
    {.path = "behaviors.inward", .type = NUMBER, .range = GE0, .def = "0.1", PRM(orca.circ_inward, FLOAT),
     .meaning = "strength of that pull: radial part of the preferred direction per metre off the radius, at most "
                "1 m's worth (beside the tangent's 1) [1/m]"},
    {.path = "behaviors.states", .type = LIST, .def_note = "empty",
     .meaning = "the states (at most 8); agents start in their block's `behavior`, else the first"},
    {.path = "behaviors.states[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "state name"},
    {.path = "behaviors.states[].goal", .type = STRING, .def_note = "the agent keeps its goal",
     .meaning = "on entering: a goal's name (a list of names: the nearest of them), `none` (stand) or `circulate` "
                "(around `behaviors.center`)"},
    {.path = "behaviors.states[].speed", .type = NUMBER, .range = GT0, .def = "1", VALUE(float, FLOAT),
     .meaning = "factor on the agent's preferred speed"},
    {.path = "behaviors.states[].neighbor_dist", .type = NUMBER, .range = GT0, .def_note = "orca.neighbor_dist",
     VALUE(float, FLOAT), .meaning = "perception range in this state [m]"},
    {.path = "behaviors.states[].time_horizon", .type = NUMBER, .range = GT0, .def_note = "orca.time_horizon",
     VALUE(float, FLOAT), .meaning = "time horizon τ in this state (intentional: about Δt) [s]"},
    {.path = "behaviors.states[].radius", .type = NUMBER, .range = GE0, .def_note = "behaviors.radius",
     VALUE(float, FLOAT), .meaning = "`circulate`: the distance from the centre this state's agents are drawn to [m]"},
    {.path = "behaviors.states[].push", .type = CHOICE, .choices = "never, always, when_slow",
     .def_note = "forces.push", VALUE(int, INT), .meaning = "when agents in this state push"},
    {.path = "behaviors.states[].push_gain", .type = NUMBER, .range = GE0, .def_note = "forces.push_gain",
     VALUE(float, FLOAT), .meaning = "κ_p in this state: \"rude\" agents push harder [1/s]"},
    {.path = "behaviors.states[].responsibility", .type = NUMBER, .range = UNIT, .def_note = "orca.responsibility",
     VALUE(float, FLOAT),
     .meaning = "this state's share of the avoidance: 1/2 reciprocal, less down to 0 for agents who leave it to "
                "others (non-reciprocal), 1 all of it"},
    {.path = "behaviors.transitions", .type = LIST, .def_note = "empty",
     .meaning = "the transitions (at most 16); each step the first of an agent's state that holds fires"},
    {.path = "behaviors.transitions[].from", .type = STRING, .flags = REQUIRED,
     .meaning = "the state it leaves"},
    {.path = "behaviors.transitions[].to", .type = STRING, .flags = REQUIRED,
     .meaning = "the state it enters"},
    {.path = "behaviors.transitions[].after", .type = NUMBER, .range = GE0, .flags = ONE_OF, VALUE(float, FLOAT),
     .meaning = "after this long in the state [s]"},
    {.path = "behaviors.transitions[].arrived", .type = BOOL, .flags = ONE_OF, VALUE(int, INT),
     .meaning = "`true`: when the agent has reached its goal"},
    {.path = "behaviors.transitions[].region", .type = POINTS, .flags = ONE_OF, .min_items = 2,
     .meaning = "when the agent is inside the rectangle [[x0, y0], [x1, y1]]"},
    {.path = "behaviors.transitions[].laps", .type = INTEGER, .range = GE1, .flags = ONE_OF, VALUE(int, INT),
     .meaning = "when the agent has completed this many circuits"},
    {.path = "behaviors.transitions[].lap", .type = BOOL, .flags = ONE_OF, VALUE(int, INT),
     .meaning = "`true`: the step the agent completes a circuit"},
    {.path = "behaviors.transitions[].chance", .type = NUMBER, .range = GE0, .flags = ONE_OF, VALUE(float, FLOAT),
     .meaning = "at random, with this probability per second (counter-based draws: any rank count)"},
    {.path = "behaviors.transitions[].slow", .type = BOOL, .flags = ONE_OF, VALUE(int, INT),
     .meaning = "`true`: when the agent has been slower than `forces.slow_speed` for `forces.slow_time`"},

    {.path = "neighbors", .type = MAP, .meaning = "neighbour grid"},
    {.path = "neighbors.cell_size", .type = NUMBER, .range = GE0, .def = "0", .def_note = "0 (auto)",
     PRM(cell_size, FLOAT), .meaning = "side of a grid cell; auto = largest contact distance + skin"},
    {.path = "neighbors.skin", .type = NUMBER, .range = GE0, .def = "0.3", PRM(skin, FLOAT),
     .meaning = "extra search distance that covers motion during a step; contact is tried for pairs within contact distance + skin at the step's start"},

    {.path = "decomposition", .type = MAP, .meaning = "load balancing when the run uses several MPI ranks"},
    {.path = "decomposition.balance_every", .type = INTEGER, .range = GE0, .def = "50", SC(balance_every, INT),
     .meaning = "measure the imbalance (largest / mean number of agents a rank owns) every K steps and "
                "re-partition when it exceeds the threshold; 0 = only once, at start-up"},
    {.path = "decomposition.balance_threshold", .type = NUMBER, .range = GE1, .def = "1.10",
     SC(balance_threshold, FLOAT),
     .meaning = "imbalance above which the ranks re-partition; a new partition is adopted only when it is "
                "better than the current one"},

    {.path = "goals", .type = LIST, .def_note = "empty", .meaning = "named goals that agent blocks refer to"},
    {.path = "goals[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "how agent blocks refer to the goal; unique"},
    {.path = "goals[].point", .type = POINT, .flags = ONE_OF,
     .meaning = "a point; reached within `model.arrive_radius`"},
    {.path = "goals[].rect", .type = MAP, .flags = ONE_OF, .meaning = "a rectangle; reached when inside"},
    {.path = "goals[].rect.min", .type = POINT, .flags = REQUIRED, .meaning = "lower-left corner"},
    {.path = "goals[].rect.max", .type = POINT, .flags = REQUIRED,
     .meaning = "upper-right corner; no coordinate below `min`'s"},
    {.path = "goals[].disk", .type = MAP, .flags = ONE_OF, .meaning = "a disk; reached when inside"},
    {.path = "goals[].disk.center", .type = POINT, .flags = REQUIRED, .meaning = "centre"},
    {.path = "goals[].disk.radius", .type = NUMBER, .range = GT0, .flags = REQUIRED, .meaning = "radius"},
    {.path = "goals[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "floors", .type = LIST, .def_note = "none: one plane (`geometry`)",
     .meaning = "the floors of a building (docs/floors.md), lowest first or in any order; instead of `geometry`"},
    {.path = "floors[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "how stairs and every `floor` key refer to it; unique"},
    {.path = "floors[].elevation", .type = NUMBER, .flags = REQUIRED, VALUE(float, FLOAT),
     .meaning = "height of the floor [m]; floors at one elevation must not overlap"},
    {.path = "floors[].walkable", .type = STRING, .flags = ONE_OF,
     .meaning = "WKT `POLYGON` or `MULTIPOLYGON` of the floor's walkable area, the footprints of the stairs that go "
                "up from it included"},
    {.path = "floors[].walkable_file", .type = STRING, .flags = ONE_OF,
     .meaning = "a file holding that WKT, relative to the scenario file's directory"},
    {.path = "stairs", .type = LIST, .def_note = "empty", .meaning = "stairs and ramps between floors"},
    {.path = "stairs[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED, .meaning = "unique"},
    {.path = "stairs[].from", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "the floor it goes up from, whose walkable area holds its footprint"},
    {.path = "stairs[].to", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "the floor it goes up to (higher than `from`)"},
    {.path = "stairs[].polygon", .type = POINTS, .flags = REQUIRED, .min_items = 3,
     .meaning = "its footprint in plan, in the floors' coordinates, inside the walkable area of `from`"},
    {.path = "stairs[].bottom", .type = POINTS, .flags = REQUIRED, .min_items = 2, .max_items = 2,
     .meaning = "the bottom landing: an edge of the footprint where it starts, at the elevation of `from`"},
    {.path = "stairs[].top", .type = POINTS, .flags = REQUIRED, .min_items = 2, .max_items = 2,
     .meaning = "the top landing: an edge of the footprint on the boundary of both floors' walkable areas (an "
                "opening into `to`)"},
    {.path = "stairs[].kind", .type = CHOICE, .choices = "stair, ramp", .def = "stair", VALUE(int, INT),
     .meaning = "a stair's speeds follow its riser and tread (SFPE), a ramp's are the level speed unless given"},
    {.path = "stairs[].riser", .type = NUMBER, .range = GT0, .def = "0.178", VALUE(float, FLOAT),
     .meaning = "riser height of a stair [m] (SFPE's geometries run from 0.165 to 0.191)"},
    {.path = "stairs[].tread", .type = NUMBER, .range = GT0, .def = "0.279", VALUE(float, FLOAT),
     .meaning = "tread depth of a stair [m] (0.254 to 0.330)"},
    {.path = "stairs[].speed_down", .type = NUMBER, .range = GT0, VALUE(float, FLOAT),
     .def_note = "stair: SFPE k_stair / k_level × cos(slope); ramp: 1",
     .meaning = "horizontal walking speed going down over the level speed"},
    {.path = "stairs[].speed_up", .type = NUMBER, .range = GT0, VALUE(float, FLOAT),
     .def_note = "stair: 0.85 × speed_down (Fruin); ramp: 1",
     .meaning = "horizontal walking speed going up over the level speed"},
    {.path = "speed_zones", .type = LIST, .def_note = "empty",
     .meaning = "areas where agents walk slower or faster (a moving walk, a slope, a crowded market)"},
    {.path = "speed_zones[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED, .meaning = "unique"},
    {.path = "speed_zones[].polygon", .type = POINTS, .flags = REQUIRED, .min_items = 3,
     .meaning = "the area, inside the walkable area (the first point is not repeated)"},
    {.path = "speed_zones[].factor", .type = NUMBER, .range = GT0, .flags = REQUIRED, VALUE(float, FLOAT),
     .meaning = "walking speed there over the agent's own"},
    {.path = "speed_zones[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},
    {.path = "obstacles", .type = LIST, .def_note = "empty", .meaning = "walls and polygons"},
    {.path = "obstacles[].segment", .type = POINTS, .flags = ONE_OF, .min_items = 2, .max_items = 2,
     .meaning = "a wall segment"},
    {.path = "obstacles[].polyline", .type = POINTS, .flags = ONE_OF, .min_items = 2,
     .meaning = "an open chain of wall segments"},
    {.path = "obstacles[].polygon", .type = POINTS, .flags = ONE_OF, .min_items = 3,
     .meaning = "a closed polygon (the first point is not repeated); agents stay outside"},
    {.path = "obstacles[].rect", .type = MAP, .flags = ONE_OF, .meaning = "a closed rectangle"},
    {.path = "obstacles[].rect.min", .type = POINT, .flags = REQUIRED, .meaning = "lower-left corner"},
    {.path = "obstacles[].rect.max", .type = POINT, .flags = REQUIRED,
     .meaning = "upper-right corner; each coordinate must exceed `min`'s"},
    {.path = "obstacles[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "exits", .type = LIST, .def_note = "empty", .meaning = "where agents leave the simulation"},
    {.path = "exits[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "how stages and agent blocks refer to the exit; unique, not `nearest`"},
    {.path = "exits[].polygon", .type = POINTS, .flags = ONE_OF, .min_items = 3,
     .meaning = "the exit area, inside the walkable area (the first point is not repeated)"},
    {.path = "exits[].segment", .type = POINTS, .flags = ONE_OF, .min_items = 2, .max_items = 2,
     .meaning = "a stretch of the walkable area's boundary; the exit is the strip `depth` deep inside it"},
    {.path = "exits[].depth", .type = NUMBER, .range = GT0, .def = "0.5", .forms = SEGMENT_EXIT, VALUE(float, FLOAT),
     .meaning = "depth of the strip [m]"},
    {.path = "exits[].width", .type = NUMBER, .range = GT0, VALUE(float, FLOAT),
     .def_note = "a segment's length; a polygon's longest edge",
     .meaning = "clear width of the door the exit stands for [m]: the report's specific flow and hydraulic "
                "estimate, and exit choice by time, divide by it (give the door's width when the exit lies beyond "
                "a narrower door)"},
    {.path = "exits[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "routing", .type = MAP, .meaning = "distance fields that lead agents to exits and stages"},
    {.path = "routing.cell", .type = NUMBER, .range = GT0, .def = "0.2", SC(route_cell, FLOAT),
     .meaning = "side of a distance-field cell [m]"},
    {.path = "routing.clearance", .type = NUMBER, .range = GE0, .def = "0", .def_note = "0 (largest agent radius)",
     SC(route_clearance, FLOAT), .meaning = "walls are inflated by this for routing [m]; 0 = the largest agent radius"},
    {.path = "routing.congestion", .type = MAP,
     .meaning = "travel-time fields that see the crowd: recomputed as the crowd moves, slower where it is dense "
                "(docs/routing.md)"},
    {.path = "routing.congestion.enabled", .type = BOOL, .def = "false", SC(congestion_on, INT),
     .meaning = "exit fields become quickest-path fields: each cell's speed falls with the density around it "
                "(Weidmann's relation), recomputed from the agents' positions every `every` seconds"},
    {.path = "routing.congestion.every", .type = NUMBER, .range = GT0, .def = "1", SC(congestion_every, FLOAT),
     .meaning = "simulated seconds between recomputations (rounded to whole steps)"},
    {.path = "routing.congestion.radius", .type = NUMBER, .range = GT0, .def = "0.2", SC(congestion_radius, FLOAT),
     .meaning = "the density of a cell counts the agents within this distance along each axis (a square of "
                "side 2 radius + cell; at least one cell either side) [m]; a cell's speed follows the largest density "
                "of it and its 8 neighbours (the cells a body there overlaps)"},
    {.path = "routing.congestion.min_speed", .type = NUMBER, .range = STIFF, .def = "0.5",
     SC(congestion_min_speed, FLOAT), .meaning = "lowest relative speed a crowd gives a cell (1 = free walking)"},
    {.path = "routing.congestion.free_density", .type = NUMBER, .range = GE0, .def = "1",
     SC(congestion_free_density, FLOAT),
     .meaning = "a cell keeps the free speed up to this density [1/m^2]; above it, Weidmann's speed relative to "
                "his speed at this density. Agents count by how little they move along the field: one walking "
                "its way at the free speed not at all, one standing fully, one walking against it up to twice"},
    {.path = "routing.exit_choice", .type = CHOICE, .choices = "distance, time", .def = "distance",
     SC(exit_choice, INT),
     .meaning = "how agents heading for the nearest exit choose it: by travel distance, or by estimated time "
                "(travel time through the crowd plus the time the exit needs for the people heading to it; needs "
                "`routing.congestion`)"},
    {.path = "routing.queue_flow", .type = NUMBER, .range = GT0, .def = "1.3", SC(queue_flow, FLOAT),
     .meaning = "specific flow [persons/(m s)] at which exit choice by time assumes an exit's `width` passes its "
                "queue (`queue_radius`)"},
    {.path = "routing.queue_radius", .type = NUMBER, .range = GT0, .def = "15", SC(queue_radius, FLOAT),
     .meaning = "exit choice by time: an exit's queue is the people heading to it within this travel distance of "
                "it [m] (those held up further back, at a bottleneck on the way, are not waiting for the exit)"},
    {.path = "routing.hysteresis", .type = NUMBER, .range = GE0, .def = "2", SC(choice_hysteresis, FLOAT),
     .meaning = "exit choice by time: an exit's queue time is revised only when it is off by more than this [s], "
                "so that agents between two exits do not turn back and forth"},
    {.path = "routing.queue_relaxation", .type = NUMBER, .range = GE0, .def = "10", SC(queue_relaxation, FLOAT),
     .meaning = "exit choice by time: an exit's queue time follows the people heading to it with this time "
                "constant [s] (0: at once); basins then settle instead of all agents swapping exits together"},

    {.path = "stages", .type = LIST, .def_note = "empty",
     .meaning = "stages of journeys: waypoints, exits, queues, waiting areas"},
    {.path = "stages[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "how journeys refer to the stage; unique"},
    {.path = "stages[].waypoint", .type = POINT, .flags = ONE_OF, STG(point, VEC2),
     .meaning = "a point to pass, inside the walkable area"},
    {.path = "stages[].exit", .type = STRING, .flags = ONE_OF,
     .meaning = "leave through this exit (an `exits[].name`)"},
    {.path = "stages[].queue", .type = POINTS, .flags = ONE_OF, .min_items = 1,
     .meaning = "slots to line up on, the front slot first, inside the walkable area"},
    {.path = "stages[].waiting", .type = POINTS, .flags = ONE_OF, .min_items = 1,
     .meaning = "slots to wait on (each agent takes a free one), inside the walkable area"},
    {.path = "stages[].distance", .type = NUMBER, .range = GT0, .def = "1", .forms = WAYPOINT, STG(distance, FLOAT),
     .meaning = "reached within this distance of the point [m]"},
    {.path = "stages[].service", .type = NUMBER, .range = GT0, .flags = REQUIRED, .forms = QUEUE,
     STG(service, FLOAT), .meaning = "seconds between departures of the front agent"},
    {.path = "stages[].until", .type = NUMBER, .range = GE0, .forms = WAITING, STG(until, FLOAT),
     .meaning = "agents leave their slots at this time [s]; give `until` or `duration`"},
    {.path = "stages[].duration", .type = NUMBER, .range = GE0, .forms = WAITING, STG(duration, FLOAT),
     .meaning = "each agent leaves this many seconds after taking its slot"},
    {.path = "stages[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "journeys", .type = LIST, .def_note = "empty",
     .meaning = "routes through stages that agent blocks and sources follow"},
    {.path = "journeys[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "how agent blocks and sources refer to the journey; unique"},
    {.path = "journeys[].stages", .type = NAMES, .flags = REQUIRED, .min_items = 1,
     .meaning = "stage names in order: agents start with the first, and each leads to the next unless a "
                "transition says otherwise"},
    {.path = "journeys[].transitions", .type = LIST, .def_note = "fixed, in list order",
     .meaning = "where agents go after a stage; at most one item per stage"},
    {.path = "journeys[].transitions[].from", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "the stage it leaves: one of the journey's stages, not an exit"},
    {.path = "journeys[].transitions[].to", .type = STRING, .flags = ONE_OF, .meaning = "fixed: always this stage"},
    {.path = "journeys[].transitions[].round_robin", .type = WEIGHTS, .flags = ONE_OF,
     .meaning = "in turn: each stage taken as many times per round as its weight"},
    {.path = "journeys[].transitions[].least_targeted", .type = NAMES, .flags = ONE_OF, .min_items = 1,
     .meaning = "the stage of these that the fewest agents are heading for"},

    {.path = "agents", .type = LIST, .flags = REQUIRED, .meaning = "agent blocks (at least one agent in total)"},
    {.path = "agents[].name", .type = STRING, .range = NONEMPTY, BLK(name, CHARS), .def_note = "`block<N>`",
     .meaning = "label used in messages and in `throng check`"},
    {.path = "agents[].layout", .type = CHOICE, .flags = REQUIRED,
     .choices = "grid, random, disk, ellipse, circle, polygon, points",
     BLK(layout, INT), .meaning = "how agents are placed"},
    {.path = "agents[].min", .type = POINT, .flags = REQUIRED, .forms = GRID | RANDOM, BLK(min, VEC2),
     .meaning = "lower-left corner of the rectangle to fill"},
    {.path = "agents[].max", .type = POINT, .flags = REQUIRED, .forms = GRID | RANDOM, BLK(max, VEC2),
     .meaning = "upper-right corner; no coordinate below `min`'s"},
    {.path = "agents[].center", .type = POINT, .flags = REQUIRED, .forms = DISK | ELLIPSE | CIRCLE,
     BLK(center, VEC2), .meaning = "centre"},
    {.path = "agents[].radius", .type = NUMBER, .range = GT0, .flags = REQUIRED, .forms = DISK | CIRCLE,
     BLK(rx, FLOAT), .meaning = "disk or circle radius (the area, not the agents)"},
    {.path = "agents[].semi_axes", .type = POINT, .range = GT0, .flags = REQUIRED, .forms = ELLIPSE,
     .meaning = "semi-axes (a, b)"},
    {.path = "agents[].polygon", .type = POINTS, .flags = REQUIRED, .min_items = 3, .forms = POLYGON_LAYOUT,
     .meaning = "the spawn region, inside the walkable area (the first point is not repeated)"},
    {.path = "agents[].points", .type = POINTS, .flags = ONE_OF, .min_items = 1, .forms = POINTS_LAYOUT,
     .meaning = "one agent per point [[x, y], ...], in list order; give `points` or `points_file`"},
    {.path = "agents[].points_file", .type = STRING, .flags = ONE_OF, .forms = POINTS_LAYOUT,
     .meaning = "a CSV file of the points, one `x,y` per line (an optional header line, `#` comments), relative to "
                "the scenario file's directory"},
    {.path = "agents[].scale", .type = NUMBER, .range = GT0, .def = "1", .forms = POINTS_LAYOUT,
     BLK(points_scale, FLOAT), .meaning = "each point p places its agent at `offset` + `scale` × p"},
    {.path = "agents[].offset", .type = POINT, .def_note = "[0, 0]", .forms = POINTS_LAYOUT,
     BLK(points_offset, VEC2), .meaning = "added to every scaled point [m]"},
    {.path = "agents[].rows", .type = INTEGER, .range = GT0, .forms = GRID, BLK(rows, INT),
     .meaning = "lattice rows, with `cols` (points spread evenly over the rectangle)"},
    {.path = "agents[].cols", .type = INTEGER, .range = GT0, .forms = GRID, BLK(cols, INT),
     .meaning = "lattice columns, with `rows`"},
    {.path = "agents[].spacing", .type = NUMBER_OR_POINT, .range = GT0,
     .forms = GRID | DISK | ELLIPSE | POLYGON_LAYOUT, .def_note = "see below",
     .meaning = "lattice spacing, one number for both directions or [x, y] (polygon: the agents are the lattice "
                "points inside the region; see below)"},
    {.path = "agents[].count", .type = INTEGER, .range = GT0, .forms = ALL_LAYOUTS, BLK(count, LONG),
     .def_note = "see below", .meaning = "number of agents"},
    {.path = "agents[].density", .type = NUMBER, .range = GT0, .forms = POLYGON_LAYOUT, BLK(density, FLOAT),
     .meaning = "agents per m² of the region, instead of `count`; not with `spacing`"},
    {.path = "agents[].jitter", .type = NUMBER, .range = GE0, .def = "0", BLK(jitter, FLOAT),
     .meaning = "each coordinate displaced by a uniform draw in [−jitter, jitter]"},
    {.path = "agents[].speed", .type = NUMBER_OR_MAP, .range = GE0, .flags = PROPERTY,
     .meaning = "preferred speed: a number (spread 0), `{mean, spread}`, `{mean, sd, min, max}` or `{rimea}` "
                "(see below)"},
    {.path = "agents[].speed.mean", .type = NUMBER, .range = GE0, .def = "1.4", BLK(speed_mean, FLOAT),
     .meaning = "mean preferred speed"},
    {.path = "agents[].speed.spread", .type = NUMBER, .range = GE0, .def = "0.1", BLK(speed_spread, FLOAT),
     .meaning = "half the width of the range; at most `mean` (an unset spread is cut to `mean`)"},
    {.path = "agents[].speed.sd", .type = NUMBER, .range = GE0,
     .meaning = "normal form: standard deviation (with `mean`, `min`, `max`)"},
    {.path = "agents[].speed.min", .type = NUMBER, .range = GE0,
     .meaning = "normal form: lowest speed (the normal is truncated to [min, max])"},
    {.path = "agents[].speed.max", .type = NUMBER, .range = GT0, .meaning = "normal form: highest speed"},
    {.path = "agents[].speed.rimea", .type = CHOICE, .choices = "under_30, 30_to_50, over_50, impaired",
     .meaning = "RiMEA test 7 group: uniform in 0.58–1.61, 1.41–1.54, 0.68–1.41, 0.46–0.76 m/s"},
    {.path = "agents[].agent_radius", .type = NUMBER_OR_MAP, .range = GT0, .flags = PROPERTY,
     .meaning = "agent disk radius: a number, uniform in `{min, max}`, or normal `{mean, sd, min, max}`"},
    {.path = "agents[].agent_radius.min", .type = NUMBER, .range = GT0, .def = "0.5", BLK(radius_min, FLOAT),
     .meaning = "smallest radius (the map needs both `min` and `max`)"},
    {.path = "agents[].agent_radius.max", .type = NUMBER, .range = GT0, .def = "0.5", BLK(radius_max, FLOAT),
     .meaning = "largest radius; not below `min`"},
    {.path = "agents[].agent_radius.mean", .type = NUMBER, .range = GT0,
     .meaning = "normal form: mean radius (with `sd`, `min`, `max`; truncated to [min, max])"},
    {.path = "agents[].agent_radius.sd", .type = NUMBER, .range = GE0, .meaning = "normal form: standard deviation"},
    {.path = "agents[].mass", .type = NUMBER_OR_MAP, .range = GT0, .flags = PROPERTY,
     .meaning = "agent mass, uniform in [min, max]; a number sets both"},
    {.path = "agents[].mass.min", .type = NUMBER, .range = GT0, .def = "1", BLK(mass_min, FLOAT),
     .meaning = "smallest mass (the map needs both `min` and `max`)"},
    {.path = "agents[].mass.max", .type = NUMBER, .range = GT0, .def = "1", BLK(mass_max, FLOAT),
     .meaning = "largest mass; not below `min`"},
    {.path = "agents[].agility", .type = NUMBER, .range = GT0, .flags = PROPERTY, .def = "1", BLK(agility, FLOAT),
     .meaning = "factor on the agent's own avoidance (long-range) correction: how quickly it gets out of the way "
                "(004's agility); with formations only"},
    {.path = "agents[].lookahead_rings", .type = INTEGER, .range = GE0, .def_note = "formations.lookahead_rings",
     BLK(fm_rings, INT),
     .meaning = "the agents' own congestion look-ahead (004's reaction: a quicker agent sees the other group "
                "further away); agents of a formation only"},
    {.path = "agents[].restore_delay", .type = INTEGER, .range = GE0, .def_note = "formations.restore_delay",
     BLK(fm_delay, INT),
     .meaning = "the agents' own restore delay [steps] (004's reaction: a quicker agent takes its place back "
                "sooner); agents of a formation only"},
    {.path = "agents[].group", .type = INTEGER, .range = GE0, .flags = PROPERTY, BLK(group, INT),
     .def_note = "block index", .meaning = "group number (written to outputs)"},
    {.path = "agents[].goal", .type = GOAL, .flags = PROPERTY, .def_note = "none",
     .meaning = "where the agents go (see below); not with `exit` or `journey`"},
    {.path = "agents[].goal.point", .type = POINT, .flags = ONE_OF, BLK(goal_point, VEC2),
     .meaning = "one point for the whole block"},
    {.path = "agents[].goal.offset", .type = POINT, .flags = ONE_OF, BLK(goal_point, VEC2),
     .meaning = "each agent's own start position plus this offset"},
    {.path = "agents[].goal.antipodal", .type = POINT, .flags = ONE_OF, BLK(goal_point, VEC2),
     .meaning = "the start position mirrored through this centre"},
    {.path = "agents[].goal.jitter", .type = NUMBER, .range = GE0, .def = "0", BLK(goal_jitter, FLOAT),
     .meaning = "each agent's goal displaced by a uniform draw in [−jitter, jitter] per coordinate"},
    {.path = "agents[].goal.altitude", .type = NUMBER, BLK(goal_altitude, FLOAT),
     .def_note = "the agent's own altitude", .meaning = "3D scenarios: the goal's altitude [m]"},
    {.path = "agents[].altitude", .type = NUMBER_OR_MAP, .flags = PROPERTY, .def_note = "0",
     .meaning = "3D scenarios: the agents' altitude [m], a number or uniform in `{min, max}`"},
    {.path = "agents[].altitude.min", .type = NUMBER, .def = "0", BLK(altitude_min, FLOAT),
     .meaning = "lowest altitude (the map needs both `min` and `max`)"},
    {.path = "agents[].altitude.max", .type = NUMBER, .def = "0", BLK(altitude_max, FLOAT),
     .meaning = "highest altitude; not below `min`"},
    {.path = "agents[].premovement", .type = NUMBER_OR_MAP, .range = GE0, .flags = PROPERTY, .def_note = "0",
     .meaning = "pre-movement time [s], until which agents stand: a number, uniform in `{min, max}`, or normal "
                "`{mean, sd, min, max}`"},
    {.path = "agents[].premovement.mean", .type = NUMBER, .range = GE0,
     .meaning = "normal form: mean (with `sd`, `min`, `max`; truncated to [min, max])"},
    {.path = "agents[].premovement.sd", .type = NUMBER, .range = GE0, .meaning = "normal form: standard deviation"},
    {.path = "agents[].premovement.min", .type = NUMBER, .range = GE0, .meaning = "shortest time"},
    {.path = "agents[].premovement.max", .type = NUMBER, .range = GE0, .meaning = "longest time; not below `min`"},
    {.path = "agents[].behavior", .type = STRING, .range = NONEMPTY, .def_note = "the first state",
     .meaning = "ORCA: the behaviour state (behaviors.states) the agents start in"},
    {.path = "agents[].laps", .type = INTEGER, .range = GE0, .def = "0", BLK(laps, INT),
     .meaning = "ORCA: circuits around `behaviors.center` the agents have completed at the start"},
    {.path = "agents[].exit", .type = STRING, .range = NONEMPTY, .flags = PROPERTY,
     .def_note = "`nearest` when there are exits and no `goal` or `journey`",
     .meaning = "`nearest` (the exit closest by travel distance) or an exit's name"},
    {.path = "agents[].journey", .type = STRING, .range = NONEMPTY, .flags = PROPERTY,
     .meaning = "a journey's name: the agents follow it from its first stage"},
    {.path = "agents[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "sources", .type = LIST, .def_note = "empty", .meaning = "where agents appear during a run"},
    {.path = "sources[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "label in messages and `throng check`; unique"},
    {.path = "sources[].polygon", .type = POINTS, .flags = REQUIRED, .min_items = 3,
     .meaning = "where agents appear, inside the walkable area (the first point is not repeated)"},
    {.path = "sources[].rate", .type = NUMBER, .range = GT0, .flags = REQUIRED, SRC(rate, FLOAT),
     .meaning = "agents per second"},
    {.path = "sources[].start", .type = NUMBER, .range = GE0, .def = "0", SRC(start, FLOAT),
     .meaning = "time of the first agent [s]"},
    {.path = "sources[].stop", .type = NUMBER, .range = GE0, .def_note = "none (no end)", SRC(stop, FLOAT),
     .meaning = "no agent after this time [s]; not before `start`"},
    {.path = "sources[].count", .type = INTEGER, .range = GT0, .def_note = "no limit", SRC(count, LONG),
     .meaning = "at most this many agents in all"},
    {.path = "sources[].agents", .type = MAP, .like = "agents[]",
     .meaning = "the agents' properties, as in an agent block: speed, agent_radius, mass, agility, group, goal, "
                "altitude, premovement, exit, journey"},
    {.path = "sources[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},

    {.path = "formations", .type = MAP,
     .meaning = "group formations with Short Range Destinations (Son & Sung 2024; docs/formations.md): the agents "
                "of a group walk a path holding the shape of their start positions"},
    {.path = "formations.groups", .type = LIST, .def_note = "empty",
     .meaning = "the formations, one per agent group"},
    {.path = "formations.groups[].group", .type = INTEGER, .range = GE0, .flags = REQUIRED, FRM(group, INT),
     .meaning = "the agents with this `agents[].group` form it; their start positions are the shape"},
    {.path = "formations.groups[].path", .type = POINTS, .flags = REQUIRED, .min_items = 1,
     .meaning = "the drawn path [[x, y], ...]; the group starts at the point nearest its centroid and stops on "
                "the last"},
    {.path = "formations.groups[].speed", .type = NUMBER, .range = GT0, .def = "1.2", FRM(speed, FLOAT),
     .meaning = "group speed ω [m/s]; below the agents' speeds, so that they can catch up"},
    {.path = "formations.groups[].speed_weight", .type = NUMBER, .range = GE0, .def = "0", FRM(speed_weight, FLOAT),
     .meaning = "004's weight on the group speed [1/m]: the group walks at ω / (1 + w e), e its rms_error of the "
                "step before, so that it waits for agents that lag; 0: constant ω"},
    {.path = "formations.groups[].min_spacing", .type = NUMBER, .range = GE0, .def = "0.5", FRM(min_spacing, FLOAT),
     .meaning = "path points closer than this to the last kept one are dropped [m]"},
    {.path = "formations.groups[].waypoint_radius", .type = NUMBER, .range = GE0, .def = "0.5",
     FRM(waypoint_radius, FLOAT),
     .meaning = "the group turns to the next point within this distance of the current one [m]"},
    {.path = "formations.stiffness", .type = NUMBER, .range = UNIT, .def = "0.5", PRM(fm_stiffness, FLOAT),
     .meaning = "fraction k_f of the gap to its SRD an agent closes per step (whatever solver.iterations)"},
    {.path = "formations.cap", .type = BOOL, .def = "true", PRM(fm_cap, INT),
     .meaning = "an agent moves towards its SRD at most at its own speed (false with stiffness 1: the paper's "
                "literal projection, a jump onto the SRD)"},
    {.path = "formations.lookahead_rings", .type = INTEGER, .range = GE0, .def = "1", PRM(fm_lookahead, INT),
     .meaning = "an agent drops its formation while an agent of another group is in a grid cell within this many "
                "rings of its own (0: its own cell, the paper's eq. 9)"},
    {.path = "formations.restore_delay", .type = INTEGER, .range = GE0, .def = "0", PRM(fm_restore_delay, INT),
     .meaning = "steps the cells must stay clear before the formation is taken back"},
    {.path = "formations.break", .type = BOOL, .def = "true", PRM(fm_break, INT),
     .meaning = "agents drop their formation where another group comes near (eq. 9); false: never (a formation "
                "that only collides, for 004's Fig. 20 comparison)"},
    {.path = "formations.steering", .type = CHOICE, .choices = "pursuit, literal, off", .def = "pursuit",
     PRM(steer_mode, INT),
     .meaning = "seek steering after the velocity update: pursuit of the moving SRD, the paper's eq. 10 "
                "(sign fixed), or none"},
    {.path = "formations.steering_time", .type = NUMBER, .range = GT0, .def = "0.5", PRM(steer_time, FLOAT),
     .meaning = "pursuit: time to close the gap to the SRD [s]"},
    {.path = "formations.steering_accel", .type = NUMBER, .range = GT0, .def = "3.0", PRM(steer_accel, FLOAT),
     .meaning = "pursuit: largest change of velocity per second [m/s²]"},

    {.path = "measurement", .type = MAP, .meaning = "what a run measures: areas, lines, maps"},
    {.path = "measurement.areas", .type = LIST, .def_note = "empty",
     .meaning = "areas to measure density and speed in"},
    {.path = "measurement.areas[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "label in outputs; unique"},
    {.path = "measurement.areas[].polygon", .type = POINTS, .flags = REQUIRED, .min_items = 3,
     .meaning = "the area (the first point is not repeated)"},
    {.path = "measurement.areas[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},
    {.path = "measurement.lines", .type = LIST, .def_note = "empty", .meaning = "lines to measure the flow across"},
    {.path = "measurement.lines[].name", .type = STRING, .range = NONEMPTY, .flags = REQUIRED,
     .meaning = "label in outputs; unique"},
    {.path = "measurement.lines[].segment", .type = POINTS, .flags = REQUIRED, .min_items = 2, .max_items = 2,
     .meaning = "the line"},
    {.path = "measurement.lines[].floor", .type = STRING, .range = NONEMPTY, .def_note = "the first floor",
     .meaning = "the floor (floors[].name) it is on; its coordinates are that floor's"},
    {.path = "measurement.maps", .type = MAP, .meaning = "density, speed, peak density, time above a density and clearing-time maps"},
    {.path = "measurement.maps.cell", .type = NUMBER, .range = GT0, .def = "1", SC(map_cell, FLOAT),
     .meaning = "side of a map cell [m]"},
    {.path = "measurement.maps.every", .type = INTEGER, .range = GE0, .def = "0", SC(map_every, INT),
     .meaning = "sample the maps every K steps; written at the end (docs/output.md, Maps); 0 = no maps"},
    {.path = "measurement.maps.threshold", .type = NUMBER, .range = GT0, .def = "2", SC(map_threshold, FLOAT),
     .meaning = "density [1/m²] at or above which the time_above map counts a cell's time"},

    {.path = "output", .type = MAP, .meaning = "what a run writes"},
    {.path = "output.dir", .type = STRING, .def = "", .def_note = "`out/<name>`", SC(out_dir, CHARS),
     .meaning = "output directory (`throng run --out` overrides)"},
    {.path = "output.trajectory_every", .type = INTEGER, .range = GE0, .def = "24", SC(trajectory_every, INT),
     .meaning = "write all agents every K steps; 0 = never"},
    {.path = "output.metrics_every", .type = INTEGER, .range = GE0, .def = "1", SC(metrics_every, INT),
     .meaning = "write a metrics row every K steps; 0 = never"},
    {.path = "output.trajectory_format", .type = CHOICE, .choices = "auto, hdf5, csv", .def = "auto",
     SC(trajectory_format, INT),
     .meaning = "trajectory.h5 (+ trajectory.xdmf: PedPy, JuPedSim, ParaView) or one CSV file per frame; auto = hdf5 "
                "when throng was built with HDF5, else csv"},
    {.path = "output.compression", .type = INTEGER, .range = GE0, .def = "0", SC(compression, INT),
     .meaning = "trajectory.h5: shuffle + deflate at this level, 1 (fast) to 9 (small); 0 = none"},
    {.path = "output.checkpoint_every", .type = INTEGER, .range = GE0, .def = "0", SC(checkpoint_every, INT),
     .meaning = "write a checkpoint (checkpoints/checkpoint-STEP.h5) every K steps; 0 = only when stopped by "
                "SIGTERM, SIGUSR1 or SIGHUP"},
    {.path = "output.checkpoint_keep", .type = INTEGER, .range = GT0, .def = "2", SC(checkpoint_keep, INT),
     .meaning = "keep the last K checkpoints of a run, deleting older ones"},

    {.path = "catalyst", .type = MAP,
     .meaning = "in situ visualisation with ParaView Catalyst (docs/insitu.md; `throng run --catalyst` adds scripts)"},
    {.path = "catalyst.scripts", .type = NAMES, .min_items = 1, .def_note = "none",
     .meaning = "Catalyst Python scripts (configs/catalyst/ has extracts, images, density, live), relative to the "
                "scenario file's directory; at most 8"},
    {.path = "catalyst.every", .type = INTEGER, .range = GT0, .def = "48", SC(catalyst_every, INT),
     .meaning = "hand the agents to the scripts every K steps (scripts may act less often)"},
};

const size_t thr_schema_len = sizeof thr_schema / sizeof thr_schema[0];

/* The pedestrian preset (docs/decisions/0004-pedestrian-model.md): body
 * radii of adults' shoulders, Weidmann's free speed, the time-gap law, and
 * the constraints calibrated by scripts/validation/calibrate.py against
 * Weidmann's fundamental diagram and bottleneck flows. The paper preset is
 * the table's defaults. */
const thr_preset_value thr_preset_values[] = {
    {THR_PRESET_PEDESTRIAN, "model.radius_scale", "1.0"},
    {THR_PRESET_PEDESTRIAN, "headway.enabled", "true"},
    {THR_PRESET_PEDESTRIAN, "headway.time_gap", "0.35"},
    {THR_PRESET_PEDESTRIAN, "headway.min_gap", "0.05"},
    {THR_PRESET_PEDESTRIAN, "headway.width", "0.7"},
    {THR_PRESET_PEDESTRIAN, "headway.range", "2.0"},
    {THR_PRESET_PEDESTRIAN, "headway.sidestep", "1.0"},
    {THR_PRESET_PEDESTRIAN, "headway.turn_anticipation", "0.9"},
    {THR_PRESET_PEDESTRIAN, "walls.clearance", "0.1"},
    {THR_PRESET_PEDESTRIAN, "routing.clearance", "0.05"},
    {THR_PRESET_PEDESTRIAN, "routing.congestion.enabled", "true"},
    {THR_PRESET_PEDESTRIAN, "routing.exit_choice", "time"},
    {THR_PRESET_PEDESTRIAN, "long_range.enabled", "false"},
    {THR_PRESET_PEDESTRIAN, "avoidance.enabled", "true"},
    {THR_PRESET_PEDESTRIAN, "avoidance.tau0", "3"},
    {THR_PRESET_PEDESTRIAN, "avoidance.radius", "2.0"},
    {THR_PRESET_PEDESTRIAN, "xsph.enabled", "false"},
    {THR_PRESET_PEDESTRIAN, "agents[].agent_radius.min", "0.2"},
    {THR_PRESET_PEDESTRIAN, "agents[].agent_radius.max", "0.25"},
    {THR_PRESET_PEDESTRIAN, "agents[].speed.mean", "1.34"},
    {THR_PRESET_PEDESTRIAN, "agents[].speed.spread", "0.1"},
};
const size_t thr_preset_values_len = sizeof thr_preset_values / sizeof thr_preset_values[0];

/* ---- look-ups ------------------------------------------------------------- */

static const thr_key *find_exact(const char *path) {
  for (size_t i = 0; i < thr_schema_len; ++i)
    if (!strcmp(thr_schema[i].path, path)) return &thr_schema[i];
  return NULL;
}

/* The row with `like` that path lies below, or NULL. */
static const thr_key *like_above(const char *path) {
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    size_t n = strlen(k->path);
    if (k->like && !strncmp(path, k->path, n) && path[n] == '.') return k;
  }
  return NULL;
}

/* The path that the rows below a row with `like` have: sources[].agents.speed
 * -> agents[].speed (other paths as they are). */
static const char *unalias(const char *path, char *buf, size_t len) {
  const thr_key *like = find_exact(path) ? NULL : like_above(path);
  if (!like) return path;
  snprintf(buf, len, "%s%s", like->like, path + strlen(like->path));
  return buf;
}

const thr_key *thr_schema_find(const char *path) {
  char buf[256];
  return find_exact(unalias(path, buf, sizeof buf));
}

const char *thr_key_name(const thr_key *k) {
  const char *dot = strrchr(k->path, '.');
  return dot ? dot + 1 : k->path;
}

int thr_key_is_child(const thr_key *k, const char *parent) {
  size_t n = strlen(parent);
  if (!n) return !strchr(k->path, '.');
  return !strncmp(k->path, parent, n) && k->path[n] == '.' && !strchr(k->path + n + 1, '.');
}

const thr_key *thr_schema_child(const char *parent, const char *name) {
  for (size_t i = 0; i < thr_schema_len; ++i)
    if (thr_key_is_child(&thr_schema[i], parent) && !strcmp(thr_key_name(&thr_schema[i]), name))
      return &thr_schema[i];
  return NULL;
}

int thr_key_takes_form(const thr_key *k, int form) {
  return !k->forms || (k->forms & (1u << form));
}

static void append_name(char *buf, size_t len, const char *sep, const char *name) {
  if (*buf) thr_str_append(buf, len, sep);
  thr_str_append(buf, len, name);
}

const char *thr_schema_names(char *buf, size_t len, const char *parent, int flags, const char *sep) {
  char other[256];
  const thr_key *map = find_exact(parent);
  if (map && map->like)
    parent = map->like, flags |= THR_KEY_PROPERTY;
  else
    parent = unalias(parent, other, sizeof other);
  buf[0] = '\0';
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, parent) && (k->flags & flags) == flags) append_name(buf, len, sep, thr_key_name(k));
  }
  return buf;
}

/* The required CHOICE key under `parent` that names its items' forms, or NULL. */
static const thr_key *form_choice(const char *parent) {
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, parent) && k->type == THR_KEY_CHOICE && (k->flags & THR_KEY_REQUIRED)) return k;
  }
  return NULL;
}

const char *thr_schema_form_name(char *buf, size_t len, const char *parent, int form) {
  const thr_key *choice = form_choice(parent);
  if (choice) return thr_key_choice(choice, form, buf, len);
  buf[0] = '\0';
  for (size_t i = 0, f = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (!thr_key_is_child(k, parent) || !(k->flags & THR_KEY_ONE_OF) || (int)f++ != form) continue;
    snprintf(buf, len, "%s", thr_key_name(k));
    break;
  }
  return buf;
}

const char *thr_schema_form_keys(char *buf, size_t len, const char *parent, int form) {
  buf[0] = '\0';
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, parent) && k->forms && thr_key_takes_form(k, form))
      append_name(buf, len, ", ", thr_key_name(k));
  }
  return buf;
}

const char *thr_key_choice(const thr_key *k, int index, char *buf, size_t len) {
  const char *s = k->choices ? k->choices : "";
  buf[0] = '\0';
  for (int i = 0; *s; ++i) {
    size_t n = strcspn(s, ",");
    if (i == index) {
      if (n < len) memcpy(buf, s, n), buf[n] = '\0';
      break;
    }
    s += n;
    while (*s == ',' || *s == ' ') s++;
  }
  return buf;
}

int thr_key_choice_index(const thr_key *k, const char *word) {
  char buf[64];
  for (int i = 0; *thr_key_choice(k, i, buf, sizeof buf); ++i)
    if (!strcmp(buf, word)) return i;
  return -1;
}

/* ---- ranges --------------------------------------------------------------- */

const char *thr_range_text(int range) {
  switch (range) {
    case THR_RANGE_GT0:
      return " > 0";
    case THR_RANGE_GE0:
      return " >= 0";
    case THR_RANGE_UNIT:
      return " in [0, 1]";
    case THR_RANGE_STIFF:
      return " in (0, 1]";
    case THR_RANGE_GE1:
      return " >= 1";
    case THR_RANGE_NONEMPTY:
      return ", not empty";
    default:
      return "";
  }
}

int thr_range_holds(int range, double v) {
  switch (range) {
    case THR_RANGE_GT0:
      return v > 0.0;
    case THR_RANGE_GE0:
      return v >= 0.0;
    case THR_RANGE_UNIT:
      return v >= 0.0 && v <= 1.0;
    case THR_RANGE_STIFF:
      return v > 0.0 && v <= 1.0;
    case THR_RANGE_GE1:
      return v >= 1.0;
    default:
      return 1;
  }
}

/* ---- markdown ------------------------------------------------------------- */

/* s into f with '|' escaped (it would end a table cell) and ">=" as "≥". */
static void put_cell(FILE *f, const char *s) {
  for (; *s; ++s) {
    if (*s == '|') {
      fputs("\\|", f);
    } else if (s[0] == '>' && s[1] == '=') {
      fputs("≥", f);
      ++s;
    } else {
      fputc(*s, f);
    }
  }
}

/* "number > 0", "list of >= 3 points", "`grid`, `random`, ...". */
static const char *type_text(const thr_key *k, char *buf, size_t len) {
  static const char *const names[] = {
      [THR_KEY_MAP] = "map",         [THR_KEY_LIST] = "list", [THR_KEY_NUMBER] = "number",
      [THR_KEY_INTEGER] = "integer", [THR_KEY_BOOL] = "bool", [THR_KEY_STRING] = "string",
      [THR_KEY_POINT] = "point"};
  char word[64];
  switch (k->type) {
    case THR_KEY_POINTS:
      snprintf(buf, len, k->max_items == k->min_items ? "list of %d points" : "list of >= %d points", k->min_items);
      break;
    case THR_KEY_CHOICE:
      buf[0] = '\0';
      for (int i = 0; *thr_key_choice(k, i, word, sizeof word); ++i)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s`%s`", i ? ", " : "", word);
      break;
    case THR_KEY_NUMBER_OR_MAP:
      snprintf(buf, len, "number%s or map `{%s}`", thr_range_text(k->range),
               thr_schema_names(word, sizeof word, k->path, 0, ", "));
      break;
    case THR_KEY_NUMBER_OR_POINT:
      snprintf(buf, len, "number or point%s", thr_range_text(k->range));
      break;
    case THR_KEY_GOAL:
      snprintf(buf, len, "goal name, list of goal names, or map");
      break;
    case THR_KEY_NAMES:
      snprintf(buf, len, "list of >= %d names", k->min_items);
      break;
    case THR_KEY_WEIGHTS:
      snprintf(buf, len, "map `{NAME: WEIGHT, ...}`, weights integers > 0");
      break;
    default:
      snprintf(buf, len, "%s%s", names[k->type], thr_range_text(k->range));
  }
  return buf;
}

static const char *default_text(const thr_key *k) {
  if (k->flags & THR_KEY_REQUIRED) return "**required**";
  if (k->def_note) return k->def_note;
  return k->def ? k->def : "";
}

/* The meaning, after "grid, random: " for a key that only some forms of
 * its item take. */
static const char *meaning_text(const thr_key *k, char *buf, size_t len) {
  char parent[128], word[64];
  buf[0] = '\0';
  int all = 1;
  if (k->forms) {
    snprintf(parent, sizeof parent, "%.*s", (int)(thr_key_name(k) - k->path - 1), k->path);
    for (int F = 0; *thr_schema_form_name(word, sizeof word, parent, F); ++F) all &= thr_key_takes_form(k, F);
  }
  if (!all) {
    for (int F = 0; *thr_schema_form_name(word, sizeof word, parent, F); ++F)
      if (thr_key_takes_form(k, F)) append_name(buf, len, ", ", word);
    thr_str_append(buf, len, ": ");
  }
  thr_str_append(buf, len, k->meaning);
  return buf;
}

/* | `path` | type | default | meaning |, an empty cell as "| |". */
static void put_row(FILE *f, const thr_key *k) {
  char path[128], type[256], meaning[512];
  snprintf(path, sizeof path, "`%s`", k->path);
  const char *cells[] = {path, type_text(k, type, sizeof type), default_text(k),
                         meaning_text(k, meaning, sizeof meaning)};
  for (size_t i = 0; i < sizeof cells / sizeof cells[0]; ++i) {
    fputs("| ", f);
    put_cell(f, cells[i]);
    if (*cells[i]) fputc(' ', f);
  }
  fputs("|\n", f);
}

/* Whether k lies below the top-level key `top` (top.x, top[].x, ...). */
static int is_below(const thr_key *k, const char *top) {
  size_t n = strlen(top);
  return !strncmp(k->path, top, n) && (k->path[n] == '.' || k->path[n] == '[');
}

static void put_table(FILE *f, const char *heading, const char *top) {
  fprintf(f, "## %s\n\n| key | type | default | meaning |\n|---|---|---|---|\n", heading);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (*top ? is_below(k, top) : thr_key_is_child(k, "")) put_row(f, k);
  }
  fputs("\n", f);
}

void thr_schema_print_markdown(FILE *f) {
  char heading[128];
  put_table(f, "Top level", "");
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *top = &thr_schema[i];
    if (!thr_key_is_child(top, "") || i + 1 == thr_schema_len || !is_below(&thr_schema[i + 1], top->path)) continue;
    snprintf(heading, sizeof heading, "`%s`", top->path);
    put_table(f, heading, top->path);
  }
  /* the presets: each key a preset changes, its default and each preset's value */
  fprintf(f, "\n### Model presets\n\n| key | paper | pedestrian |\n|---|---|---|\n");
  for (size_t i = 0; i < thr_preset_values_len; ++i) {
    const thr_preset_value *pv = &thr_preset_values[i];
    const thr_key *k = thr_schema_find(pv->path);
    if (pv->preset != THR_PRESET_PEDESTRIAN || !k) continue;
    fprintf(f, "| `%s` | %s | %s |\n", pv->path, k->def ? k->def : "", pv->value);
  }
}
