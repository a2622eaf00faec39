/* The velocity-space core of the ORCA model (seed paper 002, Kim et al.
 * 2014, on ORCA of van den Berg et al.; spec:
 * ../shared/reference/seed-002-orca-forces.md §2.2-2.4, §6.2): the
 * half-plane of a neighbour (reciprocal collision avoidance within a time
 * horizon), the force-constraint half-plane, and the incremental linear
 * programs that choose the permitted velocity closest to the preferred
 * one. Written from the published algorithm (the ORCA paper, de Berg et
 * al.'s incremental LP) and the spec's restatement, not from RVO2's code.
 * Shared by host and device code: sqrtf and division only, lines in the
 * caller's order (the result's bits depend on it; no randomisation).
 *
 * A line is a point q and a unit direction d; its feasible side is the
 * left of d: det(d, v - q) >= 0. */
#ifndef THRONG_ORCA_H
#define THRONG_ORCA_H

#include "base/hostdevice.h"
#include "base/vec2.h"

typedef struct thr_orca_line {
  thr_vec2 q; /* a point of the line */
  thr_vec2 d; /* unit direction; feasible: left of it */
} thr_orca_line;

/* Parallel lines and empty ranges below this (RVO2's tolerance, m/s). */
#define THR_ORCA_EPS 1e-5f

THR_HD float thr_det(thr_vec2 a, thr_vec2 b) { return a.x * b.y - a.y * b.x; }
/* a turned +90 degrees */
THR_HD thr_vec2 thr_perp_left(thr_vec2 a) { return v2(-a.y, a.x); }

/* How far v lies on the infeasible side of line l (> 0: violated). */
THR_HD float thr_orca_violation(const thr_orca_line *l, thr_vec2 v) { return thr_det(l->d, v2_sub(l->q, v)); }

/* ORCA half-plane of agent A (position pa, velocity va, radius ra) for
 * neighbour B (pb, vb, rb) over horizon tau; lambda is A's share of the
 * avoidance (1/2 reciprocal, 1 when B does not reciprocate); dt is the
 * step, whose cut-off separates an overlapping pair within one step. The
 * normal is the outward one of the velocity obstacle at the point closest
 * to the relative velocity (spec §2.2: 002 prints u/|u|, wrong when the
 * relative velocity lies outside). An exactly head-on pair takes the
 * right leg (both agents pass on their right). */
THR_HD thr_orca_line thr_orca_agent_line(thr_vec2 pa, thr_vec2 va, float ra, thr_vec2 pb, thr_vec2 vb, float rb,
                                         float tau, float dt, float lambda) {
  thr_vec2 p = v2_sub(pb, pa), vrel = v2_sub(va, vb);
  float R = ra + rb, p2 = v2_len2(p), R2 = R * R;
  thr_vec2 u, n;
  if (p2 > R2) {
    float inv_tau = 1.0f / tau;
    thr_vec2 w = v2_sub(vrel, v2_scale(p, inv_tau)); /* from the cut-off centre */
    float w2 = v2_len2(w), wp = v2_dot(w, p);
    if (wp < 0.0f && wp * wp > R2 * w2) { /* on the cut-off arc */
      float wl = sqrtf(w2);
      n = v2_scale(w, 1.0f / wl);
      u = v2_scale(n, R * inv_tau - wl);
    } else { /* on a leg */
      float leg = sqrtf(p2 - R2);
      thr_vec2 L;
      if (thr_det(p, w) > 0.0f)
        L = v2_scale(v2(p.x * leg - p.y * R, p.x * R + p.y * leg), 1.0f / p2);
      else
        L = v2_scale(v2(p.x * leg + p.y * R, -p.x * R + p.y * leg), -1.0f / p2);
      u = v2_sub(v2_scale(L, v2_dot(vrel, L)), vrel);
      n = thr_perp_left(L);
    }
  } else { /* overlapping: the cut-off of one step */
    float inv_dt = 1.0f / dt;
    thr_vec2 w = v2_sub(vrel, v2_scale(p, inv_dt));
    float wl = v2_len(w);
    n = wl > 0.0f ? v2_scale(w, 1.0f / wl) : v2(0.0f, -1.0f); /* coincident and at rest: any fixed side */
    u = v2_scale(n, R * inv_dt - wl);
  }
  thr_orca_line l;
  l.q = v2_add(va, v2_scale(u, lambda));
  l.d = v2(n.y, -n.x);
  return l;
}

/* The force constraint (002 eq. 12): the new velocity changes at least as
 * much along the net force f as it demands, v . f^ >= vf . f^ with
 * vf = v + f w dt, but never more than the speed disc of radius vmax
 * holds: the bound is at most THR_ORCA_FORCE_REACH vmax, so a sliver of
 * the disc stays feasible. (Growing the disc to |vf| instead let pushes,
 * which grow with the pusher's speed, feed on themselves: 19 m/s in the two
 * bottlenecks; docs/decisions/0011.) Returns 0 (no line) when f is zero. */
#define THR_ORCA_FORCE_REACH 0.99f
THR_HD int thr_orca_force_line(thr_vec2 vf, thr_vec2 f, float vmax, thr_orca_line *l) {
  float fl = v2_len(f);
  if (!(fl > 0.0f)) return 0;
  thr_vec2 fh = v2_scale(f, 1.0f / fl);
  float along = v2_dot(vf, fh), reach = THR_ORCA_FORCE_REACH * vmax;
  l->q = along > reach ? v2_sub(vf, v2_scale(fh, along - reach)) : vf;
  l->d = v2(fh.y, -fh.x);
  return 1;
}

/* LP1: the optimum on line i among lines [0, i) inside the disc of radius
 * R: the point of the line closest to target t (direction = 0), or the
 * furthest along the unit direction t (direction = 1). 0 when the line
 * misses the disc or lines [0, i) leave nothing of it. */
THR_HD int thr_orca_lp1(const thr_orca_line *lines, int i, float R, thr_vec2 t, int direction, thr_vec2 *out) {
  const thr_orca_line *li = &lines[i];
  /* Measured from the line's point nearest the origin, q0: b^2 - |q|^2 for
   * a far point (LP3's nearly parallel projections lie 10^3 m/s out)
   * cancels to noise in float and put the result 4 % outside the disc. */
  thr_vec2 q0 = v2_sub(li->q, v2_scale(li->d, v2_dot(li->q, li->d)));
  float disc = R * R - v2_len2(q0);
  if (disc < 0.0f) return 0;
  float sq = sqrtf(disc), s_lo = -sq, s_hi = sq;
  for (int j = 0; j < i; ++j) {
    const thr_orca_line *lj = &lines[j];
    float den = thr_det(li->d, lj->d), num = thr_det(lj->d, v2_sub(q0, lj->q));
    if (fabsf(den) <= THR_ORCA_EPS) {
      if (num < 0.0f) return 0; /* parallel, and line i lies on j's infeasible side */
      continue;
    }
    float s = num / den;
    if (den >= 0.0f)
      s_hi = s < s_hi ? s : s_hi;
    else
      s_lo = s > s_lo ? s : s_lo;
    if (s_lo > s_hi) return 0;
  }
  float s;
  if (direction) {
    s = v2_dot(t, li->d) > 0.0f ? s_hi : s_lo;
  } else {
    s = v2_dot(li->d, v2_sub(t, q0));
    s = s < s_lo ? s_lo : (s > s_hi ? s_hi : s);
  }
  *out = v2_add(q0, v2_scale(li->d, s));
  return 1;
}

/* LP2: the incremental 2D linear program over lines [0, n) in their
 * order, inside the disc of radius R: closest to t (direction = 0) or
 * furthest along unit t (direction = 1). *v is the result so far (the
 * optimum of the lines before the first that failed). Returns n on
 * success, else the index of the line that could not be met. */
THR_HD int thr_orca_lp2(const thr_orca_line *lines, int n, float R, thr_vec2 t, int direction, thr_vec2 *v) {
  if (direction)
    *v = v2_scale(t, R);
  else
    *v = v2_len2(t) > R * R ? v2_scale(t, R / v2_len(t)) : t;
  for (int i = 0; i < n; ++i) {
    if (!(thr_orca_violation(&lines[i], *v) > 0.0f)) continue;
    thr_vec2 keep = *v;
    if (!thr_orca_lp1(lines, i, R, t, direction, v)) {
      *v = keep;
      return i;
    }
  }
  return n;
}

/* LP3: when LP2 failed at line `fail`, the velocity that keeps the first
 * `hard` lines (static obstacles) and the disc and minimises the largest
 * violation of the others (a 3D LP in velocity and violation, solved by
 * 2D LPs on the lines projected onto each violated line; spec §6.2).
 * scratch holds at least n lines. *v: in, LP2's result; out, the answer. */
THR_HD void thr_orca_lp3(const thr_orca_line *lines, int n, int hard, int fail, float R, thr_orca_line *scratch,
                         thr_vec2 *v) {
  float h = 0.0f;
  for (int i = fail; i < n; ++i) {
    const thr_orca_line *li = &lines[i];
    if (!(thr_orca_violation(li, *v) > h)) continue;
    int m = 0;
    for (int j = 0; j < hard; ++j) scratch[m++] = lines[j];
    for (int j = hard; j < i; ++j) {
      const thr_orca_line *lj = &lines[j];
      thr_orca_line pl;
      float den = thr_det(li->d, lj->d);
      if (fabsf(den) <= THR_ORCA_EPS) {
        if (v2_dot(li->d, lj->d) > 0.0f) continue; /* same direction: line i binds first */
        pl.q = v2_scale(v2_add(li->q, lj->q), 0.5f);
      } else {
        pl.q = v2_add(li->q, v2_scale(li->d, thr_det(lj->d, v2_sub(li->q, lj->q)) / den));
      }
      thr_vec2 dd = v2_sub(lj->d, li->d);
      float dl = v2_len(dd);
      pl.d = dl > 0.0f ? v2_scale(dd, 1.0f / dl) : lj->d;
      scratch[m++] = pl;
    }
    thr_vec2 keep = *v;
    if (thr_orca_lp2(scratch, m, R, thr_perp_left(li->d), 1, v) < m) *v = keep; /* only through rounding */
    h = thr_orca_violation(li, *v);
  }
}

/* The permitted velocity closest to v_pref (002 eqs. 1-2): LP2, and LP3
 * when the lines have no common point inside the disc. Returns 1 when LP2
 * succeeded, 0 when the fallback chose the velocity. */
THR_HD int thr_orca_solve(const thr_orca_line *lines, int n, int hard, float R, thr_vec2 v_pref,
                          thr_orca_line *scratch, thr_vec2 *v) {
  int fail = thr_orca_lp2(lines, n, R, v_pref, 0, v);
  if (fail == n) return 1;
  thr_orca_lp3(lines, n, hard, fail, R, scratch, v);
  return 0;
}

/* ---- static obstacles (spec §6.3) ------------------------------------------ */

/* An edge o1 -> o2 of an obstacle as the obstacle half-plane needs it: the
 * two vertices, the unit directions of the edges leaving o1 (d1) and o2
 * (d2) and arriving at o1 (dprev), and whether each vertex is convex. A
 * polygon is walked counter-clockwise; an open wall segment is two edges,
 * one each way, with both vertices convex. */
typedef struct thr_orca_edge {
  thr_vec2 p1, p2;
  thr_vec2 d1, d2, dprev;
  int convex1, convex2;
} thr_orca_edge;

/* Tangent from the origin to the disc of radius r around a (|a| > r): the
 * left one (side = 1) or the right one (side = -1), as a unit vector. */
THR_HD thr_vec2 thr_orca_tangent(thr_vec2 a, float r, float side) {
  float a2 = v2_len2(a), leg = sqrtf(a2 - r * r);
  return v2_scale(v2(a.x * leg - side * a.y * r, side * a.x * r + a.y * leg), 1.0f / a2);
}

/* The half-plane of velocities with which an agent at pos (radius r,
 * velocity v) keeps clear of edge e for the horizon tau_o; `lines` holds
 * the n obstacle half-planes built so far (an edge they already cover
 * adds none). Returns 1 and writes *out, or 0 when the edge needs no
 * half-plane. Obstacle half-planes lie on the velocity obstacle itself (no
 * reciprocity). */
THR_HD int thr_orca_obstacle_line(const thr_orca_line *lines, int n, const thr_orca_edge *e, thr_vec2 pos, thr_vec2 v,
                                  float r, float tau_o, thr_orca_line *out) {
  float inv = 1.0f / tau_o, r2 = r * r;
  thr_vec2 a1 = v2_sub(e->p1, pos), a2 = v2_sub(e->p2, pos);
  for (int k = 0; k < n; ++k) /* both ends behind a half-plane already: covered */
    if (thr_det(v2_sub(v2_scale(a1, inv), lines[k].q), lines[k].d) - inv * r >= -THR_ORCA_EPS &&
        thr_det(v2_sub(v2_scale(a2, inv), lines[k].q), lines[k].d) - inv * r >= -THR_ORCA_EPS)
      return 0;
  thr_vec2 ed = v2_sub(e->p2, e->p1);
  float s = -v2_dot(a1, ed) / v2_len2(ed);
  float dline2 = v2_len2(v2_sub(v2_scale(a1, -1.0f), v2_scale(ed, s)));
  /* touching already: move away from the vertex or the edge */
  if (s < 0.0f && v2_len2(a1) <= r2) {
    if (!e->convex1) return 0;
    out->q = v2(0.0f, 0.0f);
    out->d = v2_scale(v2(-a1.y, a1.x), 1.0f / v2_len(a1));
    return 1;
  }
  if (s > 1.0f && v2_len2(a2) <= r2) {
    if (!e->convex2 || thr_det(a2, e->d2) < 0.0f) return 0; /* the next edge handles it */
    out->q = v2(0.0f, 0.0f);
    out->d = v2_scale(v2(-a2.y, a2.x), 1.0f / v2_len(a2));
    return 1;
  }
  if (s >= 0.0f && s <= 1.0f && dline2 <= r2) {
    out->q = v2(0.0f, 0.0f);
    out->d = v2_scale(e->d1, -1.0f);
    return 1;
  }
  /* the legs of the truncated velocity obstacle; seen end-on, one vertex
   * alone (w1 = w2) shapes it */
  thr_vec2 w1 = a1, w2 = a2, left, right, prev_dir = e->dprev, next_dir = e->d2;
  int convex_a = e->convex1, convex_b = e->convex2, single = 0;
  if (s < 0.0f && dline2 <= r2) {
    if (!e->convex1) return 0;
    single = 1, w2 = a1, next_dir = e->d1, convex_b = e->convex1;
    left = thr_orca_tangent(a1, r, 1.0f), right = thr_orca_tangent(a1, r, -1.0f);
  } else if (s > 1.0f && dline2 <= r2) {
    if (!e->convex2) return 0;
    single = 1, w1 = a2, prev_dir = e->d1, convex_a = e->convex2;
    left = thr_orca_tangent(a2, r, 1.0f), right = thr_orca_tangent(a2, r, -1.0f);
  } else {
    left = e->convex1 ? thr_orca_tangent(a1, r, 1.0f) : v2_scale(e->d1, -1.0f);
    right = e->convex2 ? thr_orca_tangent(a2, r, -1.0f) : e->d1;
  }
  /* a leg that points into the neighbouring edge is that edge's business */
  int left_foreign = 0, right_foreign = 0;
  if (convex_a && thr_det(left, v2_scale(prev_dir, -1.0f)) >= 0.0f) left = v2_scale(prev_dir, -1.0f), left_foreign = 1;
  if (convex_b && thr_det(right, next_dir) <= 0.0f) right = next_dir, right_foreign = 1;
  /* the feature of the velocity obstacle's boundary closest to v */
  thr_vec2 c1 = v2_scale(w1, inv), c2 = v2_scale(w2, inv), cut = v2_sub(c2, c1);
  float t = single ? 0.5f : v2_dot(v2_sub(v, c1), cut) / v2_len2(cut);
  float tl = v2_dot(v2_sub(v, c1), left), tr = v2_dot(v2_sub(v, c2), right);
  if ((t < 0.0f && tl < 0.0f) || (single && tl < 0.0f && tr < 0.0f)) { /* the left end's cut-off circle */
    thr_vec2 w = v2_sub(v, c1);
    w = v2_scale(w, 1.0f / v2_len(w));
    out->d = v2(w.y, -w.x);
    out->q = v2_add(c1, v2_scale(w, r * inv));
    return 1;
  }
  if (t > 1.0f && tr < 0.0f) { /* the right end's */
    thr_vec2 w = v2_sub(v, c2);
    w = v2_scale(w, 1.0f / v2_len(w));
    out->d = v2(w.y, -w.x);
    out->q = v2_add(c2, v2_scale(w, r * inv));
    return 1;
  }
  float big = 3.0e38f;
  float dc = t < 0.0f || t > 1.0f || single ? big : v2_len2(v2_sub(v, v2_add(c1, v2_scale(cut, t))));
  float dl = tl < 0.0f ? big : v2_len2(v2_sub(v, v2_add(c1, v2_scale(left, tl))));
  float dr = tr < 0.0f ? big : v2_len2(v2_sub(v, v2_add(c2, v2_scale(right, tr))));
  if (dc <= dl && dc <= dr) { /* the cut-off segment */
    out->d = v2_scale(e->d1, -1.0f);
    out->q = v2_add(c1, v2_scale(thr_perp_left(out->d), r * inv));
    return 1;
  }
  if (dl <= dr) {
    if (left_foreign) return 0;
    out->d = left;
    out->q = v2_add(c1, v2_scale(thr_perp_left(left), r * inv));
    return 1;
  }
  if (right_foreign) return 0;
  out->d = v2_scale(right, -1.0f);
  out->q = v2_add(c2, v2_scale(thr_perp_left(out->d), r * inv));
  return 1;
}

/* ---- physical forces of 002 (spec §2.4; not in the step yet: issue 18) ---- */

/* Collision force on agent i from k (eq. 6, Baraff's impulse over a step):
 * n = (p_i - p_k)/|.| (coincident: (tie, 0)), J = -(1 + e)(v_rel . n)/(w_i
 * + w_k) when approaching (v_rel . n < 0), f = (J/dt) n; zero otherwise.
 * k's force from the same inputs is exactly the negative. */
THR_HD thr_vec2 thr_orca_collision_force(thr_vec2 pi, thr_vec2 vi, float wi, thr_vec2 pk, thr_vec2 vk, float wk,
                                         float restitution, float dt, float tie) {
  thr_vec2 d = v2_sub(pi, pk);
  float l = v2_len(d);
  thr_vec2 n = l > 0.0f ? v2_scale(d, 1.0f / l) : v2(tie, 0.0f);
  float vn = v2_dot(v2_sub(vi, vk), n), ws = wi + wk;
  if (!(vn < 0.0f) || !(ws > 0.0f)) return v2(0.0f, 0.0f);
  return v2_scale(n, -(1.0f + restitution) * vn / ws / dt);
}

/* The push of pusher i (position pi, velocity vi, total push fp shared by
 * its n_push pushed agents) on agent k at pk (eq. 5): fp / n_push along
 * pk - (pi + dt vi) (that point coinciding with pk: along vi; at rest:
 * none). */
THR_HD thr_vec2 thr_orca_push_force(thr_vec2 pi, thr_vec2 vi, float fp, int n_push, thr_vec2 pk, float dt) {
  if (!(n_push > 0) || !(fp > 0.0f)) return v2(0.0f, 0.0f);
  thr_vec2 d = v2_sub(pk, v2_add(pi, v2_scale(vi, dt)));
  float l = v2_len(d);
  if (!(l > 0.0f)) {
    l = v2_len(vi);
    if (!(l > 0.0f)) return v2(0.0f, 0.0f);
    d = vi;
  }
  return v2_scale(d, fp / (float)n_push / l);
}

/* The deceleration force of agent i (eq. 8): k_thresh m dv/dt with dv = v
 * - v_prev, when dv points within theta_d of straight backwards from v_prev
 * (cos_d = cos theta_d, from the host) and no external force acted on i
 * that step; zero otherwise. */
THR_HD thr_vec2 thr_orca_deceleration_force(thr_vec2 v, thr_vec2 v_prev, float mass, float k_thresh, float cos_d,
                                            float dt, int forced) {
  thr_vec2 dv = v2_sub(v, v_prev);
  float ldv = v2_len(dv), lp = v2_len(v_prev);
  if (forced || !(ldv > 0.0f) || !(lp > 0.0f)) return v2(0.0f, 0.0f);
  if (!(v2_dot(dv, v_prev) / (ldv * lp) < -cos_d)) return v2(0.0f, 0.0f);
  return v2_scale(dv, k_thresh * mass / dt);
}

/* The resistive force of agent i (eq. 9): k_thresh m (v - v_f)/dt when an
 * external force acted on i that step (v_f: the velocity it implied). */
THR_HD thr_vec2 thr_orca_resistive_force(thr_vec2 v, thr_vec2 vf, float mass, float k_thresh, float dt, int forced) {
  if (!forced) return v2(0.0f, 0.0f);
  return v2_scale(v2_sub(v, vf), k_thresh * mass / dt);
}

/* Does an inferred force of agent i along unit axis a reach neighbour k
 * (relative position d = p_k - p_i, radii sum R)? k interacts (|d| < R +
 * margin) and lies within the cone of half-angle theta around a (cos_t).
 * One function, the sender's view, for the sender's count and the
 * recipient's test alike. */
THR_HD int thr_orca_in_cone(thr_vec2 a, thr_vec2 d, float R, float margin, float cos_t) {
  float l = v2_len(d);
  return l < R + margin && l > 0.0f && v2_dot(a, d) >= cos_t * l;
}

#endif
