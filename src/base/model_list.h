/* The crowd models (`model.kind`), declared once (decision 0015).
 *
 * THR_MODELS(MODEL) calls MODEL(KIND, name, own_plan, groups, reach0, reach1, walls, derive) for each model,
 * in the schema's order:
 *   KIND      THR_MODEL_<KIND>
 *   name      its model.kind value; its host row is thr_model_<name> (io/model_<name>.c)
 *   own_plan  1: a PLAN pass of its own gives x* (PBD's plan and prediction do not run), and
 *             the final pass clamps the velocity to model.max_speed; 2: the same, but the
 *             velocity it plans already lies within model.max_speed and is the one it keeps
 *             (the final pass leaves it: the agent moved with it, decision 0021)
 *   groups    the field groups it needs beyond CORE (THR_GROUP_BIT, agent_fields.h)
 *   reach0/1  the radii of its own neighbour queries [m] (0: none): the world's rings
 *             k_model[0], k_model[1], which the ghost layer also covers
 *   walls     how far from an agent's centre it reads walls [m] (0: only PBD's contact)
 *   derive    an expression that sets its parameters derived from the world (the world's init)
 * Expressions read the parameters `prm` and the largest agent radius `rmax`.
 *
 * A new model is a line here, its parameters (a struct in
 * params_<name>.h, a member of the model union in params.h), its keys
 * (io/schema.c), its host row (io/model_<name>.c), its pass rows
 * (kernels/pass_list.h) and functions (kernels/passes_<name>.h), and its
 * tests: the loader, `throng check`, run.json, the world's rings, the ghost
 * margin and the stored fields follow from this line. */
#ifndef THRONG_MODEL_LIST_H
#define THRONG_MODEL_LIST_H

#define THR_MODELS(MODEL)                                                                                        \
  MODEL(PBD, pbd, 0, 0u, 0.0f, 0.0f, 0.0f, (void)0)                                                              \
  MODEL(ORCA, orca, 2, THR_GROUP_BIT(ORCA), prm->orca.range_max, prm->orca.reach,                                \
        prm->orca.horizon_obst * prm->max_speed + rmax, THR_ORCA_DERIVE(prm, rmax))                              \
  MODEL(POWERLAW, powerlaw, 1, 0u, prm->powerlaw.range, 0.0f, prm->powerlaw.range, (void)0)                      \
  MODEL(RVO3D, rvo3d, 2, 0u, prm->rvo3d.range, 0.0f, 0.0f, (void)0)

/* ORCA's forces act between agents in (or near) contact: their reach, a
 * much smaller one than its neighbours', needs the largest agent radius. */
#define THR_ORCA_DERIVE(prm, rmax)                                                                               \
  ((prm)->orca.reach = 2.0f * (rmax) +                                                                           \
                       ((prm)->orca.interact_margin > (prm)->orca.contact_margin ? (prm)->orca.interact_margin  \
                                                                                 : (prm)->orca.contact_margin) + \
                       2.0f * (prm)->max_speed * (prm)->dt)

#endif
