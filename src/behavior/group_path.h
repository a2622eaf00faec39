/* A formation group's path (seed paper 004, eqs. 2-3; spec §2.3): the
 * drawn points resampled, the current waypoint, the group position P that
 * advances at the group speed without overshooting, and the displacement V
 * of the last step, which moves every SRD of the group (s_i = P + o_i).
 * Host only and deterministic: every rank advances every group identically
 * from the scenario, so the group state needs no communication. */
#ifndef THRONG_BEHAVIOR_GROUP_PATH_H
#define THRONG_BEHAVIOR_GROUP_PATH_H

#include <stddef.h>

#include "base/vec2.h"

typedef struct thr_group_path {
  thr_vec2 *pts; /* resampled path; the last point is the destination */
  int n;
  int waypoint; /* index of the current waypoint W */
  thr_vec2 pos;  /* group position P */
  thr_vec2 step; /* V of the last step [m] (zero once arrived) */
  int arrived;   /* P is on the last point */
} thr_group_path;

/* Keep a drawn point only if it is at least min_spacing from the last kept
 * one; the first and the last drawn points are always kept. Writes to out
 * (room for n points); returns how many were kept. */
int thr_path_resample(const thr_vec2 *pts, int n, float min_spacing, thr_vec2 *out);

/* A group at position p0 (eq. 2, the centroid of its agents) on the drawn
 * path: resampled, the current waypoint the kept point closest to p0 (ties:
 * the lowest index). Returns -1 when out of memory or n < 1. */
int thr_group_path_init(thr_group_path *g, const thr_vec2 *pts, int n, float min_spacing, thr_vec2 p0);
void thr_group_path_free(thr_group_path *g);

/* One step of eq. 3 at speed `speed` [m/s]: switch to the next waypoint
 * when W is not the last and |W - P| <= max(speed dt, waypoint_radius) (at
 * most one switch a step), then V = D min(speed dt, |W - P|) and P += V.
 * Returns V. */
thr_vec2 thr_group_path_step(thr_group_path *g, float speed, float dt, float waypoint_radius);

#endif
