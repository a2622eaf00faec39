/* Group formations with Short Range Destinations (Son & Sung 2024, seed
 * paper 004; spec ../shared/reference/seed-004-srd-formations.md, design
 * docs/decisions/0008-formations.md): the per-agent equations, shared by
 * the CPU loops and the CUDA kernels like physics.h.
 *
 * The passes that call them are in passes.h; the group state (one
 * thr_formation_state per formation, the same on every rank) comes from
 * core/formations.c. */
#ifndef THRONG_FORMATION_H
#define THRONG_FORMATION_H

#include <math.h>

#include "base/hostdevice.h"
#include "base/vec2.h"

/* What the kernels know of a formation this step: its position P (the
 * SRDs are s_i = P + offset_i) and its velocity V / dt. */
typedef struct thr_formation_state {
  thr_vec2 pos;
  thr_vec2 vel;
} thr_formation_state;

/* formations.steering */
enum thr_steer_mode { THR_STEER_PURSUIT, THR_STEER_LITERAL, THR_STEER_OFF };

/* ---- eq. 9: degree of congestion of a cell ----------------------------- */

/* Codes of a cell: empty (alpha), holding two or more groups (beta), or the
 * id (>= 0) of the only group present (gamma). */
enum { THR_CELL_EMPTY = -2, THR_CELL_MIXED = -1 };

/* The code of a cell after adding an agent of group g (>= 0) to a cell
 * whose code was `code`. Folding every agent of a cell from
 * THR_CELL_EMPTY gives eq. 9, whatever the order. */
THR_HD int thr_congestion_add(int code, int g) {
  if (code == THR_CELL_EMPTY) return g;
  return code == g ? code : THR_CELL_MIXED;
}

/* The behaviour decision (spec §2.5): an agent counts the steps its
 * look-ahead cells have held no agent of another group (0 when they do
 * now; saturating), and holds its formation while the count exceeds the
 * restore delay (delay 0: as soon as the cells are clear). */
#define THR_FCLEAR_MAX (1 << 30)
THR_HD int thr_formation_clear_next(int clear, int congested) {
  if (congested) return 0;
  return clear < THR_FCLEAR_MAX ? clear + 1 : THR_FCLEAR_MAX;
}
THR_HD int thr_formation_holds(int clear, int restore_delay) { return clear > restore_delay; }

/* ---- eq. 3: the group speed ---------------------------------------------- */

/* 004 sets the group speed omega "as a constant speed and uses a weight
 * value to adjust the velocity of a group" without a rule. throng's rule
 * (formations.groups[].speed_weight w [1/m]): omega / (1 + w e), e the
 * group's RMS distance to the SRDs [m], so that the group slows down and
 * waits while agents lag. w = 0 gives omega exactly. Host only (eq. 3 runs
 * on the host). */
static inline float thr_formation_weighted_speed(float speed, float weight, double rms_error) {
  if (!(weight > 0.0f)) return speed;
  return (float)((double)speed / (1.0 + (double)weight * rms_error));
}

/* ---- eq. 8: the soft formation constraint ------------------------------ */

/* The per-iteration stiffness that closes the fraction k_f of the gap to
 * the SRD in one step of N solver iterations (Müller et al.'s
 * iteration-count-independent stiffness): 1 - (1 - k_f)^(1/N). Computed once
 * on the host and passed to the kernels in the parameters. */
static inline float thr_formation_iteration_stiffness(float k_f, int iterations) {
  if (iterations < 1) iterations = 1;
  if (!(k_f > 0.0f)) return 0.0f;
  if (k_f >= 1.0f) return 1.0f;
  return (float)(1.0 - pow(1.0 - (double)k_f, 1.0 / (double)iterations));
}

/* Shorten d to length at most `max` (max <= 0: no limit). */
THR_HD thr_vec2 thr_clamp_length(thr_vec2 d, float max) {
  if (!(max > 0.0f)) return d;
  float len2 = v2_len2(d);
  if (!(len2 > max * max)) return d;
  return v2_scale(d, max / sqrtf(len2));
}

/* Correction of x*_i towards its SRD s_i (only the agent moves: the SRD has
 * infinite mass): k_it (s - p), at most max_step long (the agent's chase
 * speed times dt / N; 0: no cap, with k_it = 1 the literal projection of
 * eq. 8 that lands on the SRD). A gap below 1e-6 m gives no correction. */
#define THR_FORMATION_MIN_GAP 1e-6f
THR_HD thr_vec2 thr_formation_correction(thr_vec2 p, thr_vec2 s, float k_it, float max_step) {
  thr_vec2 gap = v2_sub(s, p);
  if (!(v2_len2(gap) > THR_FORMATION_MIN_GAP * THR_FORMATION_MIN_GAP)) return v2(0.0f, 0.0f);
  return thr_clamp_length(v2_scale(gap, k_it), max_step);
}

/* ---- eq. 10: seek steering after the velocity update ------------------- */

/* The pursuit form of the spec (§2.6): the desired velocity is the group's
 * velocity plus closing the gap to the SRD in time t_s, at most kappa (the
 * agent's chase speed); the velocity turns towards it by at most
 * max_accel * dt. v: the velocity after the update, x: the new position,
 * s: the SRD, group_v: the group's velocity V / dt. */
THR_HD thr_vec2 thr_steer_pursuit(thr_vec2 v, thr_vec2 x, thr_vec2 s, thr_vec2 group_v, float t_s, float kappa,
                                  float max_accel, float dt) {
  thr_vec2 desired = thr_clamp_length(v2_add(group_v, v2_scale(v2_sub(s, x), 1.0f / t_s)), kappa);
  return v2_add(v, thr_clamp_length(v2_sub(desired, v), max_accel * dt));
}

/* The paper's eq. 10 with its sign fixed: v becomes kappa towards the SRD
 * (no smoothing); an agent on its SRD keeps v. For comparison only. */
THR_HD thr_vec2 thr_steer_literal(thr_vec2 v, thr_vec2 x, thr_vec2 s, float kappa) {
  thr_vec2 d = v2_sub(s, x);
  float len = v2_len(d);
  return len > THR_FORMATION_MIN_GAP ? v2_scale(d, kappa / len) : v;
}

#endif
