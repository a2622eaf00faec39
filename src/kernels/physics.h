/* THE physics of throng: every constraint and update of Algorithm 1
 * (Weiss et al. 2017) as a small inline function compiled by both the C
 * compiler (CPU backend) and nvcc (CUDA backend). Never duplicate an
 * equation outside this file; docs/paper-map.md maps each function to the
 * paper's equations.
 *
 * Conventions: every pair function returns agent i's share of a pairwise
 * constraint (gather form: agent j computes its own share from the same
 * inputs), so no atomics are needed. w = inverse mass. */
#ifndef THRONG_PHYSICS_H
#define THRONG_PHYSICS_H

#include "fpmath.h"
#include "base/hostdevice.h"
#include "base/vec2.h"

#include "base/params.h"
#include "base/vec3.h"

/* Which anticipatory response a long-range pair produces. */
enum { THR_LR_COLLISION = 0, THR_LR_AVOIDANCE = 1 };

/* How the correction of the colliding positions x~ reaches x*
 * (`long_range.response`, `avoidance.response`; docs/paper-map.md): as it
 * is (the paper, the WebGPU port), or projected through dx~/dx* =
 * tau_tilde/dt, i.e. scaled by dt/tau_tilde. The order is the schema's
 * choices. */
enum thr_lr_response { THR_LR_DIRECT = 0, THR_LR_PROJECTED = 1 };


/* ---- speed-density relation (throng's addition to section 4.1) ---------- */

/* How far agent i can walk straight along unit direction e before its body
 * touches neighbour j's, for j at relative position d = x_j - x_i and the
 * sum R of the two radii. Only neighbours ahead whose centre lies within
 * width * R of i's path count (width in (0, 1]: a neighbour that only
 * grazes i's shoulder is passed, not followed; contact keeps them apart);
 * HUGE_VALF for the others. Negative when they already overlap. */
THR_HD float thr_headway_gap(thr_vec2 e, thr_vec2 d, float R, float width) {
  float along = v2_dot(e, d);
  float lat = v2_cross(e, d);
  float band = width * R;
  if (!(along > 0.0f) || !(lat * lat < band * band)) return HUGE_VALF;
  return along - sqrtf(R * R - lat * lat);
}

/* The speed an agent may walk at with a free gap ahead: the optimal-velocity
 * function of Newell (1961), v = v0 (1 - exp(-(gap - g0) / (v0 T))), 0 for
 * gap <= g0. Close behind someone it is the time-gap law of Tordeux,
 * Chraibi and Seyfried (2016), v = (gap - g0) / T; with more room it
 * approaches v0 gradually, as Weidmann's fundamental diagram does, instead
 * of reaching it at a gap of g0 + v0 T (docs/decisions/0004). */
THR_HD float thr_headway_speed(float v0, float gap, float min_gap, float time_gap) {
  float u = (gap - min_gap) / time_gap;
  if (!(u > 0.0f)) return 0.0f;
  if (!(u < 30.0f * v0)) return v0;
  return v0 * (1.0f - thr_expf(-u / v0));
}

/* ---- section 4.7: walls and obstacles ----------------------------------- */

/* Closest point to p on segment [a, b]. */
THR_HD thr_vec2 thr_closest_on_segment(thr_vec2 p, thr_vec2 a, thr_vec2 b) {
  thr_vec2 ab = v2_sub(b, a);
  float l2 = v2_len2(ab);
  if (!(l2 > 0.0f)) return a;
  float t = v2_dot(v2_sub(p, a), ab) / l2;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return v2_add(a, v2_scale(ab, t));
}

/* Does the path of an agent centre from q to p cross wall segment [a, b]?
 * Strict crossings, plus paths through the segment's start point a (and its
 * end point b when `include_end`): consecutive segments of a polyline then
 * count a path through their shared vertex exactly once. */
THR_HD int thr_path_crosses_wall(thr_vec2 q, thr_vec2 p, thr_vec2 a, thr_vec2 b, int include_end) {
  float d1 = v2_cross(v2_sub(b, a), v2_sub(q, a));
  float d2 = v2_cross(v2_sub(b, a), v2_sub(p, a));
  if (!((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f))) return 0;
  float d3 = v2_cross(v2_sub(p, q), v2_sub(a, q));
  float d4 = v2_cross(v2_sub(p, q), v2_sub(b, q));
  if ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f)) return 1;
  return d3 == 0.0f || (include_end && d4 == 0.0f);
}

/* Contact with a static obstacle of infinite mass: the agent (radius rr,
 * already scaled) at signed distance `dist` along unit normal n (pointing
 * from the obstacle into free space) is pushed out. Returns 1 if active. */
THR_HD int thr_wall_contact(float dist, thr_vec2 n, float rr, float stiffness, thr_vec2 *dx) {
  float c = dist - rr;
  if (!(c < 0.0f)) return 0;
  *dx = v2_scale(n, -stiffness * c);
  return 1;
}

/* ---- section 4.3: XSPH cohesion ----------------------------------------- */

/* Poly6 kernel W(r, h) = 315/(64 pi h^9) (h^2 - r^2)^3 for r < h, given
 * r^2, h^2 and the precomputed coefficient. */
THR_HD float thr_poly6(float r2, float h2, float coef) {
  if (!(r2 < h2)) return 0.0f;
  float d = h2 - r2;
  return coef * d * d * d;
}
/* ---- the equations of sections 4.1-4.6 in 2D and 3D (physics_vec.h) ------ */

#define THR_V thr_vec2
#define THR_VOP(op) v2_##op
#define THR_FN(name) name
#include "physics_vec.h"
#undef THR_V
#undef THR_VOP
#undef THR_FN

#define THR_V thr_vec3
#define THR_VOP(op) v3_##op
#define THR_FN(name) name##3
#include "physics_vec.h"
#undef THR_V
#undef THR_VOP
#undef THR_FN

/* ---- 3D agents: the separation plane (seed paper 003; docs/3d.md) ------- */

/* The unit direction t across the separation plane of a pair with unit
 * normal n: horizontal t_h = n x up normalised (n vertical: (1, 0, 0), a
 * fixed choice); vertical t_v = n x t_h normalised (exactly (0, 0, -1)
 * for a horizontal n); axis: n x a normalised. Returns 0 where there is
 * none (axis parallel to n, tangent mode). Uses sqrtf and division only. */
THR_HD int thr_plane_direction3(thr_vec3 n, int plane, thr_vec3 axis, thr_vec3 *t) {
  if (plane == THR_PLANE_AXIS) {
    thr_vec3 a = v3_cross(n, axis);
    float la = v3_len(a);
    if (!(la > 1e-6f)) return 0;
    *t = v3_scale(a, 1.0f / la);
    return 1;
  }
  if (plane != THR_PLANE_HORIZONTAL && plane != THR_PLANE_VERTICAL) return 0;
  thr_vec3 th = v3_cross(n, v3(0.0f, 0.0f, 1.0f));
  float lh = v3_len(th);
  th = lh > 1e-6f ? v3_scale(th, 1.0f / lh) : v3(1.0f, 0.0f, 0.0f);
  if (plane == THR_PLANE_HORIZONTAL) {
    *t = th;
    return 1;
  }
  thr_vec3 tv = v3_cross(n, th);
  float lv = v3_len(tv);
  if (!(lv > 0.0f)) return 0;
  *t = v3_scale(tv, 1.0f / lv);
  return 1;
}

/* The predicted collision of a pair as agent i sees it (q, i's share
 * first), turned into the pair's canonical order: the agent with the
 * smaller id first. Both agents of a pair get the same bits (their own
 * predictions are exact mirror images: negated differences, the same
 * products), so a response computed from it is exactly antisymmetric. */
THR_HD thr_lr_pred3 thr_lr_canonical3(const thr_lr_pred3 *q, int i_first) {
  if (i_first) return *q;
  thr_lr_pred3 c = *q;
  c.ai = q->aj;
  c.aj = q->ai;
  c.n = v3_scale(q->n, -1.0f);
  c.ti = q->tj;
  c.tj = q->ti;
  c.vi = q->vj;
  c.vj = q->vi;
  return c;
}

/* The separation-plane avoidance response of agent i (seed 003 eqs. 1-4 as
 * docs/3d.md reads them): the pair's colliding positions x~ projected apart
 * (section 4.5), d = (x~'_i - x^_i) - (x~'_j - x^_j) and its part d_t
 * across the projected normal, all in the pair's canonical order (xa, xb:
 * the start-of-step positions in that order); the direction t of the
 * plane mode, signed by the side d_t already drifts to (d_t . t >= 0: +t,
 * a deterministic tie rule for an exactly head-on pair); the magnitude of
 * thr_lr_magnitude3 with i's share. The first agent moves along +t, the
 * other along -t: never along n. Tangent mode: t = d_t / |d_t| (no
 * response where d_t = 0, as in 2D). Returns 0 when inactive. */
THR_HD int thr_lr_plane_avoidance3(const thr_lr_pred3 *q, int i_first, thr_vec3 xa, thr_vec3 xb, float s, float dt,
                                   int response, int plane, thr_vec3 axis, thr_vec3 *dxi) {
  thr_lr_pred3 c = thr_lr_canonical3(q, i_first);
  thr_vec3 ca = v3_sub(c.ti, v3_scale(c.n, c.ai * c.c));
  thr_vec3 cb = v3_add(c.tj, v3_scale(c.n, c.aj * c.c));
  thr_vec3 ha = v3_add(xa, v3_scale(c.vi, c.tau_hat));
  thr_vec3 hb = v3_add(xb, v3_scale(c.vj, c.tau_hat));
  thr_vec3 dd = v3_sub(v3_sub(ca, ha), v3_sub(cb, hb));
  thr_vec3 nc = v3_sub(ca, cb);
  float nlen = v3_len(nc);
  if (!(nlen > 0.0f)) return 0;
  nc = v3_scale(nc, 1.0f / nlen);
  thr_vec3 dtan = v3_sub(dd, v3_scale(nc, v3_dot(dd, nc)));
  thr_vec3 t;
  if (plane == THR_PLANE_TANGENT) {
    float tlen = v3_len(dtan);
    if (!(tlen > 0.0f)) return 0;
    t = v3_scale(dtan, 1.0f / tlen);
  } else {
    if (!thr_plane_direction3(nc, plane, axis, &t)) return 0;
    if (v3_dot(dtan, t) < 0.0f) t = v3_scale(t, -1.0f);
  }
  /* i's magnitude (negative) with its own share; the first agent goes +t */
  float m = thr_lr_magnitude3(q, s, dt, response);
  *dxi = v3_scale(t, i_first ? -m : m);
  return 1;
}

/* The automatic plane choice of one agent (docs/3d.md): from the counts of
 * its neighbours within the choice radius beside it in its layer (where a
 * side-step would take it) and above or below it (where passing over or
 * under would): vertical when at least two more are beside than above or
 * below, else horizontal. (One neighbour beside is no crowd: it is the
 * partner of a lone pair at the moment they pass, which would otherwise
 * switch to vertical there.) */
THR_HD int thr_plane_choice3(int beside, int above_below) {
  return beside >= above_below + 2 ? THR_PLANE_VERTICAL : THR_PLANE_HORIZONTAL;
}

/* Where neighbour k (relative position d = x_k - x_i, radii sum R) lies for
 * the choice of agent i heading along horizontal unit h: 1 beside it in its
 * layer, 2 above or below, 0 neither (ahead or behind in its layer). */
THR_HD int thr_plane_census3(thr_vec3 d, thr_vec2 h, float R) {
  if (!(fabsf(d.z) < R)) return 2;
  float along = d.x * h.x + d.y * h.y, lat = d.x * h.y - d.y * h.x;
  return fabsf(lat) >= fabsf(along) ? 1 : 0;
}

/* Floor and ceiling (infinite mass, docs/3d.md): a sphere of (scaled)
 * radius rr at altitude z stays within [z_min + rr, z_max - rr]. Adds the
 * correction to *dz and returns the number of active constraints. */
THR_HD int thr_floor_ceiling(float z, float rr, float z_min, float z_max, float stiffness, float *dz) {
  int n = 0;
  float c = z - (z_min + rr);
  if (c < 0.0f) *dz += -stiffness * c, ++n;
  c = (z_max - rr) - z;
  if (c < 0.0f) *dz += stiffness * c, ++n;
  return n;
}

#endif
