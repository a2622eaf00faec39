/* The velocity-space core of 3D ORCA (model.kind rvo3d; seed paper 003's
 * comparator "the 3D implementation of RVO", spec seed-003-3d-pbd.md §3.4;
 * docs/3d.md): the half-space of a neighbour sphere (reciprocal collision
 * avoidance within a time horizon), and the incremental linear programs
 * that choose the permitted velocity closest to the preferred one inside
 * the speed sphere: 3D over half-spaces, 2D on a plane, 1D on a line, and
 * the fallback that minimises the largest violation when they leave
 * nothing. Written from the published algorithm (ORCA, van den Berg et
 * al. 2011, and de Berg et al.'s incremental LP) as orca.h is in 2D, not
 * from RVO2-3D's code. Shared by host and device code: sqrtf and division
 * only, planes in the caller's order (no randomisation).
 *
 * A plane is a point q and a unit normal n; its feasible side is the one
 * n points to: (v - q) . n >= 0. */
#ifndef THRONG_RVO3D_H
#define THRONG_RVO3D_H

#include "base/hostdevice.h"
#include "base/vec3.h"

typedef struct thr_rvo3d_plane {
  thr_vec3 q; /* a point of the plane */
  thr_vec3 n; /* unit normal; feasible: the side it points to */
} thr_rvo3d_plane;

/* Parallel planes and lines below this (as orca.h's THR_ORCA_EPS, m/s). */
#define THR_RVO3D_EPS 1e-5f

/* How far v lies on the infeasible side of plane p (> 0: violated). */
THR_HD float thr_rvo3d_violation(const thr_rvo3d_plane *p, thr_vec3 v) { return v3_dot(v3_sub(p->q, v), p->n); }

/* The side an exactly head-on pair avoids to (the relative velocity along
 * the line of centres p leaves the cone's normal undecided): horizontal and
 * to the right of p, as orca.h's right leg in 2D; a vertical p takes +-x by
 * the sign of p.z. Odd in p, so the two agents take opposite sides. */
THR_HD thr_vec3 thr_rvo3d_side(thr_vec3 p) {
  thr_vec3 s = v3(p.y, -p.x, 0.0f); /* p x up */
  float l = v3_len(s);
  if (l > 0.0f) return v3_scale(s, 1.0f / l);
  return v3(p.z >= 0.0f ? 1.0f : -1.0f, 0.0f, 0.0f);
}

/* ORCA half-space of agent A (position pa, velocity va, radius ra) for
 * neighbour B (pb, vb, rb) over horizon tau; lambda is A's share of the
 * avoidance (1/2 reciprocal). The velocity obstacle is the cone from the
 * origin around the sphere of radius ra + rb at p = pb - pa, cut off by the
 * sphere of radius (ra + rb)/tau around p/tau; u runs from the relative
 * velocity to its nearest point of the obstacle's boundary, and n is the
 * outward normal there. An overlapping pair uses the cut-off of one step
 * dt (it separates within the step). */
THR_HD thr_rvo3d_plane thr_rvo3d_agent_plane(thr_vec3 pa, thr_vec3 va, float ra, thr_vec3 pb, thr_vec3 vb, float rb,
                                             float tau, float dt, float lambda) {
  thr_vec3 p = v3_sub(pb, pa), vrel = v3_sub(va, vb), u, n;
  float R = ra + rb, p2 = v3_len2(p), R2 = R * R;
  if (p2 > R2) {
    float inv_tau = 1.0f / tau;
    thr_vec3 w = v3_sub(vrel, v3_scale(p, inv_tau)); /* from the cut-off centre */
    float w2 = v3_len2(w), wp = v3_dot(w, p);
    if (wp < 0.0f && wp * wp > R2 * w2) { /* on the cut-off sphere */
      float wl = sqrtf(w2);
      n = v3_scale(w, 1.0f / wl);
      u = v3_scale(n, R * inv_tau - wl);
    } else { /* on the cone: in the plane of p and vrel, the generator on vrel's side */
      float pl = sqrtf(p2);
      thr_vec3 ph = v3_scale(p, 1.0f / pl);
      thr_vec3 perp = v3_sub(vrel, v3_scale(ph, v3_dot(vrel, ph)));
      float el = v3_len(perp);
      thr_vec3 e = el > 0.0f ? v3_scale(perp, 1.0f / el) : thr_rvo3d_side(p);
      float sn = R / pl, cs = sqrtf(p2 - R2) / pl; /* the cone's half-angle */
      n = v3_sub(v3_scale(e, cs), v3_scale(ph, sn));
      u = v3_scale(n, -v3_dot(vrel, n));
    }
  } else { /* overlapping: the cut-off of one step */
    float inv_dt = 1.0f / dt;
    thr_vec3 w = v3_sub(vrel, v3_scale(p, inv_dt));
    float wl = v3_len(w);
    n = wl > 0.0f ? v3_scale(w, 1.0f / wl) : v3(0.0f, -1.0f, 0.0f); /* coincident and at rest: a fixed side */
    u = v3_scale(n, R * inv_dt - wl);
  }
  thr_rvo3d_plane h;
  h.q = v3_add(va, v3_scale(u, lambda));
  h.n = n;
  return h;
}

/* Floor and ceiling as half-spaces of the vertical velocity (the agent at
 * altitude z, radius r, keeps its sphere between z_min and z_max after a
 * step dt). Writes two planes. */
THR_HD int thr_rvo3d_floor_ceiling(float z, float r, float z_min, float z_max, float dt, thr_rvo3d_plane *out) {
  out[0].n = v3(0.0f, 0.0f, 1.0f);
  out[0].q = v3(0.0f, 0.0f, (z_min + r - z) / dt);
  out[1].n = v3(0.0f, 0.0f, -1.0f);
  out[1].q = v3(0.0f, 0.0f, (z_max - r - z) / dt);
  return 2;
}

/* LP1: on the line P + s d (d unit), inside the sphere of radius R and
 * planes [0, m): the point closest to target t (direction = 0), or the
 * furthest along the unit direction t (direction = 1). 0 when the line
 * misses the sphere or the planes leave nothing of it. */
THR_HD int thr_rvo3d_lp1(const thr_rvo3d_plane *planes, int m, thr_vec3 P, thr_vec3 d, float R, thr_vec3 t,
                         int direction, thr_vec3 *out) {
  /* from the line's point nearest the origin, as orca.h's LP1: b^2 - |P|^2
   * of a far point cancels to noise in float */
  P = v3_sub(P, v3_scale(d, v3_dot(P, d)));
  float disc = R * R - v3_len2(P);
  if (disc < 0.0f) return 0;
  float sq = sqrtf(disc), s_lo = -sq, s_hi = sq;
  for (int k = 0; k < m; ++k) {
    float den = v3_dot(d, planes[k].n), num = v3_dot(v3_sub(planes[k].q, P), planes[k].n); /* need s den >= num */
    if (fabsf(den) <= THR_RVO3D_EPS) {
      if (num > 0.0f) return 0; /* parallel, and the line lies on k's infeasible side */
      continue;
    }
    float s = num / den;
    if (den > 0.0f)
      s_lo = s > s_lo ? s : s_lo;
    else
      s_hi = s < s_hi ? s : s_hi;
    if (s_lo > s_hi) return 0;
  }
  float s;
  if (direction) {
    s = v3_dot(t, d) > 0.0f ? s_hi : s_lo;
  } else {
    s = v3_dot(d, v3_sub(t, P));
    s = s < s_lo ? s_lo : (s > s_hi ? s_hi : s);
  }
  *out = v3_add(P, v3_scale(d, s));
  return 1;
}

/* LP2: on plane i, inside the sphere of radius R and planes [0, i): the
 * incremental 2D program in the plane's disc, each violated plane j
 * solved on the line where it meets plane i (LP1 over planes [0, j)). 0
 * when the plane misses the sphere or nothing of it is left. */
THR_HD int thr_rvo3d_lp2(const thr_rvo3d_plane *planes, int i, float R, thr_vec3 t, int direction, thr_vec3 *out) {
  const thr_rvo3d_plane *pi = &planes[i];
  float dist = v3_dot(pi->q, pi->n), r2 = R * R - dist * dist;
  if (r2 < 0.0f) return 0;
  /* the disc: centre n dist, radius sqrt(r2); t's part along the plane */
  thr_vec3 centre = v3_scale(pi->n, dist), v, off = v3_sub(t, v3_scale(pi->n, v3_dot(t, pi->n)));
  float l2 = v3_len2(off);
  if (direction) /* the disc's point furthest along t */
    v = l2 > THR_RVO3D_EPS * THR_RVO3D_EPS ? v3_add(centre, v3_scale(off, sqrtf(r2 / l2))) : centre;
  else /* t projected onto the plane, into the disc */
    v = v3_add(centre, l2 > r2 ? v3_scale(off, sqrtf(r2 / l2)) : off);
  for (int j = 0; j < i; ++j) {
    const thr_rvo3d_plane *pj = &planes[j];
    if (!(thr_rvo3d_violation(pj, v) > 0.0f)) continue;
    thr_vec3 d = v3_cross(pi->n, pj->n);
    float d2 = v3_len2(d);
    if (d2 <= THR_RVO3D_EPS * THR_RVO3D_EPS) return 0; /* parallel: all of plane i violates j */
    float dl = sqrtf(d2);
    d = v3_scale(d, 1.0f / dl);
    thr_vec3 across = v3_cross(d, pi->n); /* in plane i, towards j's boundary; across . n_j = |n_i x n_j| */
    thr_vec3 P = v3_add(pi->q, v3_scale(across, v3_dot(v3_sub(pj->q, pi->q), pj->n) / v3_dot(across, pj->n)));
    if (!thr_rvo3d_lp1(planes, j, P, d, R, t, direction, &v)) return 0;
  }
  *out = v;
  return 1;
}

/* LP3: the incremental 3D linear program over planes [0, n) in their
 * order, inside the sphere of radius R: closest to t (direction = 0) or
 * furthest along unit t (direction = 1). *v is the result so far (the
 * optimum of the planes before the first that failed). Returns n on
 * success, else the index of the plane that could not be met. */
THR_HD int thr_rvo3d_lp3(const thr_rvo3d_plane *planes, int n, float R, thr_vec3 t, int direction, thr_vec3 *v) {
  if (direction)
    *v = v3_scale(t, R);
  else
    *v = v3_len2(t) > R * R ? v3_scale(t, R / v3_len(t)) : t;
  for (int i = 0; i < n; ++i) {
    if (!(thr_rvo3d_violation(&planes[i], *v) > 0.0f)) continue;
    thr_vec3 keep = *v;
    if (!thr_rvo3d_lp2(planes, i, R, t, direction, v)) {
      *v = keep;
      return i;
    }
  }
  return n;
}

/* LP4: when LP3 failed at plane `fail`, the velocity that keeps the first
 * `hard` planes (floor and ceiling) and the sphere and minimises the
 * largest violation of the others: a 4D program in velocity and violation,
 * solved as 3D programs over the planes where plane i's violation equals
 * each earlier plane's, going furthest along n_i. scratch holds at least n
 * planes. *v: in, LP3's result; out, the answer. */
THR_HD void thr_rvo3d_lp4(const thr_rvo3d_plane *planes, int n, int hard, int fail, float R,
                          thr_rvo3d_plane *scratch, thr_vec3 *v) {
  float h = 0.0f;
  for (int i = fail; i < n; ++i) {
    const thr_rvo3d_plane *pi = &planes[i];
    if (!(thr_rvo3d_violation(pi, *v) > h)) continue;
    int m = 0;
    for (int j = 0; j < hard; ++j) scratch[m++] = planes[j];
    for (int j = hard; j < i; ++j) {
      const thr_rvo3d_plane *pj = &planes[j];
      /* violation_j <= violation_i: v . (n_j - n_i) >= q_j . n_j - q_i . n_i */
      thr_vec3 dn = v3_sub(pj->n, pi->n);
      float dl2 = v3_len2(dn);
      if (dl2 <= THR_RVO3D_EPS * THR_RVO3D_EPS) continue; /* same normal: plane i binds first */
      float dl = sqrtf(dl2);
      scratch[m].n = v3_scale(dn, 1.0f / dl);
      scratch[m].q = v3_scale(dn, (v3_dot(pj->q, pj->n) - v3_dot(pi->q, pi->n)) / dl2);
      ++m;
    }
    thr_vec3 keep = *v;
    if (thr_rvo3d_lp3(scratch, m, R, pi->n, 1, v) < m) *v = keep; /* only through rounding */
    h = thr_rvo3d_violation(pi, *v);
  }
}

/* The permitted velocity closest to v_pref: LP3, and LP4 when the planes
 * have no common point inside the sphere of radius R. Returns 1 when LP3
 * succeeded, 0 when the fallback chose the velocity. */
THR_HD int thr_rvo3d_solve(const thr_rvo3d_plane *planes, int n, int hard, float R, thr_vec3 v_pref,
                           thr_rvo3d_plane *scratch, thr_vec3 *v) {
  int fail = thr_rvo3d_lp3(planes, n, R, v_pref, 0, v);
  if (fail == n) return 1;
  thr_rvo3d_lp4(planes, n, fail < hard ? 0 : hard, fail, R, scratch, v); /* hard planes that fail are soft */
  return 0;
}

#endif
