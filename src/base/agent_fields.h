/* Every per-agent field of throng, declared once.
 *
 * THR_AGENT_FIELDS(FIELD) calls FIELD(NAME, member, type, life, ghost, group, blank, meaning) for
 * each field. From this one list come the host store (base/agents.h), the
 * CUDA store (the same struct holding device pointers), the full record that
 * migration and output carry, the ghost record, the load/store functions both
 * backends pack and unpack with, and the field masks of halo forwarding.
 *
 *   life   STATE: part of an agent's state: created by populate, kept in
 *                 canonical order by the sort, carried whole by migration,
 *                 output and (later) checkpoints.
 *          STEP:  scratch valid within one step only (written by one pass,
 *                 read by a later one): stored for owned agents and ghosts,
 *                 forwarded to ghosts when a pass says so, never migrated.
 *   ghost  GHOST: part of the ghost record, copied to other ranks' ghosts at
 *                 the ghost exchange (everything a neighbour loop reads of
 *                 another agent); OWNED: not copied then. A STEP field
 *                 reaches ghosts only when a pass forwards it.
 *   group  CORE: every run stores it. FORMATION, DIM3, ORCA: only runs of
 *                 formations, 3D scenarios or the ORCA model store it
 *                 (thr_fields_absent); elsewhere the backends allocate no
 *                 array for it and records carry its blank value.
 *   blank  its value in a new agent and where it is not stored: ZERO (all
 *                 bits 0), MINUS1 (-1) or NONE (THR_GOALSET_NONE).
 *
 * Adding a field is one line here (plus the code that gives it meaning).
 * Types must be 4 or 8 bytes wide (or a multiple of 4): the CUDA backend
 * moves fields as 32-bit words. 8-byte fields come first, which keeps the
 * records free of inner padding (tests/unit/test_agents.c checks). */
#ifndef THRONG_AGENT_FIELDS_H
#define THRONG_AGENT_FIELDS_H

#define THR_AGENT_FIELDS(FIELD)                                                                           \
  FIELD(X, x, thr_vec2, STATE, GHOST, CORE, ZERO, "position x^n at the start of the step [m]")                          \
  FIELD(P, p, thr_vec2, STATE, GHOST, CORE, ZERO, "predicted position x* (the solver's iterate) [m]")                   \
  FIELD(V, v, thr_vec2, STATE, GHOST, CORE, ZERO, "velocity [m/s]")                                                     \
  FIELD(GOAL, goal, thr_vec2, STATE, OWNED, CORE, ZERO, "personal goal point (goal_set == THR_GOALSET_PERSONAL)")       \
  FIELD(VNEW, vnew, thr_vec2, STEP, OWNED, CORE, ZERO, "velocity (x* - x)/dt before XSPH (velocity pass -> finalize)")  \
  FIELD(VPREF, vpref, thr_vec2, STEP, OWNED, CORE, ZERO, "preferred velocity of this step's plan, which the headway law reads of neighbours [m/s]") \
  FIELD(SRD, srd, thr_vec2, STATE, OWNED, FORMATION, ZERO, "Short Range Destination minus its formation's position [m]")        \
  FIELD(VPREV, vprev, thr_vec2, STATE, OWNED, ORCA, ZERO, "velocity of the step before, v^(n-1) (ORCA forces) [m/s]")       \
  FIELD(VF, vf, thr_vec2, STATE, OWNED, ORCA, ZERO, "velocity the net force alone implied last step, v^f (ORCA forces) [m/s]") \
  FIELD(FSHARE, fshare, thr_vec2, STEP, OWNED, ORCA, ZERO, "inferred force handed on: each recipient's share, or the agent's own [N]") \
  FIELD(FAHEAD, fahead, thr_vec2, STEP, OWNED, ORCA, ZERO, "direction a pusher pushes in: its preferred direction (zero: none)") \
  FIELD(FAXIS, faxis, thr_vec2, STEP, OWNED, ORCA, ZERO, "axis of the inferred force's cone (zero: kept by the agent itself)") \
  FIELD(ID, id, uint32_t, STATE, GHOST, CORE, ZERO, "global id, unique over the whole simulation")                      \
  FIELD(RADIUS, radius, float, STATE, GHOST, CORE, ZERO, "disk radius [m]")                                             \
  FIELD(INV_MASS, inv_mass, float, STATE, GHOST, CORE, ZERO, "1 / mass")                                                \
  FIELD(PREF_SPEED, pref_speed, float, STATE, OWNED, CORE, ZERO, "preferred walking speed [m/s]")                       \
  FIELD(GOAL_SET, goal_set, int32_t, STATE, OWNED, CORE, NONE, "goal set index, or THR_GOALSET_PERSONAL / _NONE")       \
  FIELD(GROUP, group, int32_t, STATE, OWNED, CORE, ZERO, "group number from the scenario")                              \
  FIELD(FORMATION, formation, int32_t, STATE, GHOST, FORMATION, MINUS1, "formation of the agent's group (formations.groups index), or -1") \
  FIELD(FCLEAR, fclear, int32_t, STATE, OWNED, FORMATION, ZERO, "steps the agent's look-ahead cells held no other group")          \
  FIELD(AGILITY, agility, float, STATE, OWNED, FORMATION, ONE, "factor on the agent's own long-range correction (004's agility)")  \
  FIELD(FRINGS, frings, int32_t, STATE, OWNED, FORMATION, MINUS1, "the agent's own congestion look-ahead rings (004's reaction), or -1: formations.lookahead_rings") \
  FIELD(FDELAY, fdelay, int32_t, STATE, OWNED, FORMATION, MINUS1, "the agent's own restore delay [steps] (004's reaction), or -1: formations.restore_delay") \
  FIELD(FLAGS, flags, uint32_t, STATE, OWNED, CORE, ZERO, "THR_FLAG_* bits")                                         \
  FIELD(RELEASE, release, float, STATE, OWNED, CORE, ZERO, "time the agent starts walking: end of pre-movement [s]")    \
  FIELD(BORN, born, float, STATE, OWNED, CORE, ZERO, "time the agent entered the simulation [s]")                       \
  FIELD(TRAVEL, travel, float, STATE, OWNED, CORE, ZERO, "distance walked so far [m]")                                 \
  FIELD(ROUTE, route, int32_t, STATE, GHOST, CORE, MINUS1, "distance field followed, or -1: the goal (no field)")         \
  FIELD(STAGE, stage, int32_t, STATE, OWNED, CORE, MINUS1, "current journey stage, or -1")                               \
  FIELD(SLOT, slot, int32_t, STATE, OWNED, CORE, MINUS1, "slot at a queue or waiting stage; -1 none, -2 hold position")   \
  FIELD(JOURNEY, journey, int32_t, STATE, OWNED, CORE, MINUS1, "journey, or -1")                                       \
  FIELD(Z, z, float, STATE, GHOST, DIM3, ZERO, "altitude of x^n (3D scenarios; 0 in 2D) [m]")                          \
  FIELD(PZ, pz, float, STATE, GHOST, DIM3, ZERO, "altitude of x* [m]")                                                 \
  FIELD(VZ, vz, float, STATE, GHOST, DIM3, ZERO, "vertical velocity [m/s]")                                            \
  FIELD(GOAL_Z, goal_z, float, STATE, OWNED, DIM3, ZERO, "goal altitude (3D; NaN: the agent's own altitude) [m]")      \
  FIELD(VNEWZ, vnewz, float, STEP, OWNED, DIM3, ZERO, "vertical part of vnew [m/s]")                                    \
  FIELD(PLANE, plane, int32_t, STEP, OWNED, DIM3, ZERO, "separation plane the agent prefers (avoidance.plane auto)")   \
  FIELD(FPUSH, fpush, float, STEP, OWNED, ORCA, ZERO, "push each pushed agent gets from this one, f_p / N_push [N]")      \
  FIELD(FCONE, fcone, float, STEP, OWNED, ORCA, ZERO, "cosine of the half-angle of the inferred force's cone")            \
  FIELD(BSTATE, bstate, int32_t, STATE, OWNED, ORCA, ZERO, "behaviour state (behaviors.states index; ORCA)")                \
  FIELD(BTIME, btime, int32_t, STATE, OWNED, ORCA, ZERO, "steps spent in the behaviour state")                           \
  FIELD(BSLOW, bslow, int32_t, STATE, OWNED, ORCA, ZERO, "steps the agent has walked slower than its state's slow speed") \
  FIELD(LAPS, laps, int32_t, STATE, OWNED, ORCA, ZERO, "circuits completed around behaviors.center")

/* Selectors for the life and ghost columns: THR_IF_<column>_<value>(code)
 * expands to code or to nothing. */
#define THR_IF_STATE_STATE(code) code
#define THR_IF_STATE_STEP(code)
#define THR_IF_GHOSTREC_GHOST(code) code
#define THR_IF_GHOSTREC_OWNED(code)
/* A field's blank value written into lvalue lv. */
#define THR_BLANK_SET_ZERO(lv) memset(&(lv), 0, sizeof(lv))
#define THR_BLANK_SET_MINUS1(lv) ((lv) = -1)
#define THR_BLANK_SET_NONE(lv) ((lv) = THR_GOALSET_NONE)
#define THR_BLANK_SET_ONE(lv) ((lv) = 1.0f)

#endif
