/* Unit tests of the 3D ORCA core (kernels/rvo3d.h; model.kind rvo3d, seed
 * paper 003's comparator, docs/3d.md): the half-space of a head-on pair
 * computed by hand, its reciprocity, the cut-off and overlap branches, the
 * 3D linear program against brute force on random feasible sets, and the
 * fallback (LP4) against a brute-force minimum of the largest violation,
 * keeping the speed sphere and the hard planes. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/rvo3d.h"

/* The smallest centre distance of two spheres with relative position p and
 * relative velocity vr over t in [0, tau] (exact, double). */
static double closest3(thr_vec3 p, thr_vec3 vr, double tau) {
  double a = (double)vr.x * vr.x + (double)vr.y * vr.y + (double)vr.z * vr.z;
  double b = (double)p.x * vr.x + (double)p.y * vr.y + (double)p.z * vr.z;
  double t = a > 0.0 ? b / a : 0.0;
  t = t < 0.0 ? 0.0 : (t > tau ? tau : t);
  double dx = t * vr.x - p.x, dy = t * vr.y - p.y, dz = t * vr.z - p.z;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Head-on pair by hand: A at 0 moving (1, 0, 0), B at (4, 0, 0) moving
 * (-1, 0, 0), radii 0.5, tau 2: v_rel = (2, 0, 0) = p/tau lies on the cone's
 * axis (w = 0: the cone, not the cut-off), so the tie rule picks the side
 * e = p x up / |.| = (0, -1, 0) (A's right). The cone's half-angle has sin
 * R/|p| = 1/4 and cos sqrt(15)/4: n = e cos - p^ sin = (-1/4, -sqrt(15)/4,
 * 0); u = -(v_rel . n) n = n/2; q = v_A + u/2 = (1 - 1/16, -sqrt(15)/16, 0).
 * B's half-space is the mirror image (n_B = -n_A), and v_rel + u grazes the
 * sphere (closest distance R for ever after). */
THR_TEST(agent_plane_head_on_by_hand) {
  thr_vec3 pa = v3(0.0f, 0.0f, 0.0f), va = v3(1.0f, 0.0f, 0.0f), pb = v3(4.0f, 0.0f, 0.0f), vb = v3(-1.0f, 0.0f, 0.0f);
  thr_rvo3d_plane h = thr_rvo3d_agent_plane(pa, va, 0.5f, pb, vb, 0.5f, 2.0f, 0.1f, 0.5f);
  double s15 = sqrt(15.0);
  CHECK_NEAR(h.n.x, -0.25, 1e-6);
  CHECK_NEAR(h.n.y, -s15 / 4.0, 1e-6);
  CHECK_NEAR(h.n.z, 0.0, 0.0);
  CHECK_NEAR(h.q.x, 1.0 - 1.0 / 16.0, 1e-6);
  CHECK_NEAR(h.q.y, -s15 / 16.0, 1e-6);
  CHECK_NEAR(h.q.z, 0.0, 0.0);
  CHECK(thr_rvo3d_violation(&h, va) > 0.0f); /* A's own velocity is cut off */
  thr_rvo3d_plane g = thr_rvo3d_agent_plane(pb, vb, 0.5f, pa, va, 0.5f, 2.0f, 0.1f, 0.5f);
  CHECK(g.n.x == -h.n.x && g.n.y == -h.n.y && g.n.z == -h.n.z); /* exactly opposite: both pass on their right */
  CHECK_NEAR(g.q.x, -h.q.x, 1e-6);
  CHECK_NEAR(g.q.y, -h.q.y, 1e-6);
  thr_vec3 u = v3_scale(v3_sub(h.q, va), 2.0f), vr = v3_add(v3(2.0f, 0.0f, 0.0f), u);
  CHECK_NEAR(closest3(v3_sub(pb, pa), vr, 1e9), 1.0, 1e-5);
  CHECK(closest3(v3_sub(pb, pa), v3_add(vr, v3_scale(h.n, 0.01f)), 1e9) > 1.0);
  CHECK(closest3(v3_sub(pb, pa), v3_sub(vr, v3_scale(h.n, 0.01f)), 1e9) < 1.0);
}

/* Off the axis in 3D (B ahead, above and to the side): the half-space's
 * normal lies in the plane of p and v_rel, v_rel + u grazes the sphere, and
 * the two agents' half-spaces are mirror images. */
THR_TEST(agent_plane_cone_3d) {
  thr_vec3 pa = v3(0.0f, 0.0f, 0.0f), va = v3(1.2f, 0.1f, 0.0f), pb = v3(5.0f, 0.3f, 0.4f), vb = v3(-1.0f, 0.0f, 0.1f);
  thr_rvo3d_plane h = thr_rvo3d_agent_plane(pa, va, 0.5f, pb, vb, 0.4f, 3.0f, 0.1f, 0.5f);
  thr_vec3 p = v3_sub(pb, pa), vrel = v3_sub(va, vb);
  CHECK_NEAR(v3_len(h.n), 1.0, 1e-6);
  CHECK_NEAR(v3_dot(h.n, v3_cross(p, vrel)), 0.0, 1e-5); /* coplanar with p and v_rel */
  CHECK(closest3(p, vrel, 3.0) < 0.9);                    /* colliding before */
  thr_vec3 vr = v3_add(vrel, v3_scale(v3_sub(h.q, va), 2.0f));
  CHECK_NEAR(closest3(p, vr, 1e9), 0.9, 1e-5);
  thr_rvo3d_plane g = thr_rvo3d_agent_plane(pb, vb, 0.4f, pa, va, 0.5f, 3.0f, 0.1f, 0.5f);
  CHECK_NEAR(g.n.x, -h.n.x, 1e-6);
  CHECK_NEAR(g.n.y, -h.n.y, 1e-6);
  CHECK_NEAR(g.n.z, -h.n.z, 1e-6);
}

/* Cut-off sphere: B 4 m straight above, v_rel = (0, 0, 1.8), tau = 2: w =
 * v_rel - p/tau = (0, 0, -0.2), on the cut-off: u = (R/tau - |w|) w^ = (0, 0,
 * -0.3): they touch exactly at t = tau. Overlapping: the cut-off of one step
 * dt separates them within the step. */
THR_TEST(agent_plane_cutoff_and_overlap) {
  thr_rvo3d_plane h = thr_rvo3d_agent_plane(v3(0.0f, 0.0f, 0.0f), v3(0.0f, 0.0f, 0.9f), 0.5f, v3(0.0f, 0.0f, 4.0f),
                                            v3(0.0f, 0.0f, -0.9f), 0.5f, 2.0f, 0.1f, 0.5f);
  CHECK_NEAR(h.n.z, -1.0, 1e-6);
  CHECK_NEAR(h.q.z, 0.9 - 0.15, 1e-6);
  CHECK_NEAR(closest3(v3(0.0f, 0.0f, 4.0f), v3(0.0f, 0.0f, 1.5f), 2.0), 1.0, 1e-6);
  /* overlapping by 0.2 m at rest: A's share moves it 0.1 m away in one step */
  float dt = 0.1f;
  thr_rvo3d_plane o = thr_rvo3d_agent_plane(v3(0.0f, 0.0f, 0.0f), v3_zero(), 0.5f, v3(0.8f, 0.0f, 0.0f), v3_zero(), 0.5f,
                                            2.0f, dt, 0.5f);
  CHECK_NEAR(o.n.x, -1.0, 1e-6);
  CHECK_NEAR(o.q.x * dt, -0.1, 1e-6);
}

/* ---- the linear programs against brute force ------------------------------- */

static unsigned long long rng_state = 12345;
static double urand(void) { /* [0, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}
static thr_vec3 rand_unit(void) {
  for (;;) {
    double x = 2 * urand() - 1, y = 2 * urand() - 1, z = 2 * urand() - 1, l = sqrt(x * x + y * y + z * z);
    if (l > 0.1 && l < 1.0) return v3((float)(x / l), (float)(y / l), (float)(z / l));
  }
}
static thr_vec3 rand_ball(double r) {
  for (;;) {
    double x = 2 * urand() - 1, y = 2 * urand() - 1, z = 2 * urand() - 1;
    if (x * x + y * y + z * z <= 1.0) return v3((float)(x * r), (float)(y * r), (float)(z * r));
  }
}

typedef struct { double x, y, z; } d3;
static d3 D(thr_vec3 a) { return (d3){a.x, a.y, a.z}; }
static d3 dadd(d3 a, d3 b) { return (d3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static d3 dsub(d3 a, d3 b) { return (d3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static d3 dsc(d3 a, double s) { return (d3){a.x * s, a.y * s, a.z * s}; }
static double ddot(d3 a, d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static d3 dcross(d3 a, d3 b) { return (d3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

static double viol(const thr_rvo3d_plane *p, d3 v) { return ddot(dsub(D(p->q), v), D(p->n)); }
static double max_viol(const thr_rvo3d_plane *pl, int from, int n, d3 v) {
  double h = -1e30;
  for (int k = from; k < n; ++k) h = fmax(h, viol(&pl[k], v));
  return h;
}

/* The point of the feasible set (planes and sphere) closest to t, by
 * enumerating every candidate active set of at most three planes, with or
 * without the sphere (double). Returns the distance (HUGE_VAL: empty). */
static double brute_closest(const thr_rvo3d_plane *pl, int n, double R, d3 t) {
  d3 cand[4096];
  int m = 0;
  cand[m++] = t;
  double tl = sqrt(ddot(t, t));
  if (tl > 0) cand[m++] = dsc(t, R / tl);
  for (int i = 0; i < n; ++i) {
    d3 ni = D(pl[i].n);
    double di = ddot(D(pl[i].q), ni);
    d3 proj = dadd(t, dsc(ni, di - ddot(t, ni))), c = dsc(ni, di), off = dsub(proj, c);
    cand[m++] = proj;
    double r2 = R * R - di * di, ol = sqrt(ddot(off, off));
    if (r2 >= 0 && ol > 0) cand[m++] = dadd(c, dsc(off, sqrt(r2) / ol));
    for (int j = i + 1; j < n; ++j) {
      d3 nj = D(pl[j].n), d = dcross(ni, nj);
      double dl2 = ddot(d, d);
      if (dl2 < 1e-12) continue;
      double dj = ddot(D(pl[j].q), nj);
      /* a point on both planes: x = a ni + b nj */
      double nn = ddot(ni, nj), det = 1 - nn * nn, a = (di - dj * nn) / det, b = (dj - di * nn) / det;
      d3 P = dadd(dsc(ni, a), dsc(nj, b)), du = dsc(d, 1 / sqrt(dl2));
      cand[m++] = dadd(P, dsc(du, ddot(dsub(t, P), du)));
      double pb = ddot(P, du), disc = pb * pb + R * R - ddot(P, P);
      if (disc >= 0) {
        cand[m++] = dadd(P, dsc(du, -pb - sqrt(disc)));
        cand[m++] = dadd(P, dsc(du, -pb + sqrt(disc)));
      }
      for (int k = j + 1; k < n; ++k) {
        d3 nk = D(pl[k].n);
        double det3 = ddot(ni, dcross(nj, nk));
        if (fabs(det3) < 1e-9) continue;
        double dk = ddot(D(pl[k].q), nk);
        cand[m++] = dsc(dadd(dadd(dsc(dcross(nj, nk), di), dsc(dcross(nk, ni), dj)), dsc(dcross(ni, nj), dk)),
                        1 / det3);
      }
    }
  }
  double best = HUGE_VAL;
  for (int c = 0; c < m; ++c)
    if (sqrt(ddot(cand[c], cand[c])) <= R * (1 + 1e-9) && max_viol(pl, 0, n, cand[c]) <= 1e-9)
      best = fmin(best, sqrt(ddot(dsub(cand[c], t), dsub(cand[c], t))));
  return best;
}

/* Random sets of 1-8 half-spaces that keep a point strictly feasible inside
 * the sphere: LP3 succeeds, its answer is feasible, and no feasible point is
 * closer to the target (brute force over all active sets). */
THR_TEST(lp_optimal_against_brute_force) {
  const float R = 2.0f;
  int worse = 0, infeasible = 0, failed = 0;
  double largest_gap = 0.0;
  for (int trial = 0; trial < 3000; ++trial) {
    int n = 1 + trial % 8;
    thr_vec3 v0 = rand_ball(0.8 * R), t = rand_ball(2.0 * R);
    thr_rvo3d_plane pl[8];
    for (int k = 0; k < n; ++k) {
      pl[k].n = rand_unit();
      /* through v0 - margin n (v0 keeps 0.05-1 m of room), or pointing away from the target */
      pl[k].q = v3_sub(v0, v3_scale(pl[k].n, (float)(0.05 + urand())));
      if (k % 2) pl[k].q = v3_add(pl[k].q, v3_scale(pl[k].n, (float)(0.5 * urand())));
      if (thr_rvo3d_violation(&pl[k], v0) > -0.01f) pl[k].q = v3_sub(v0, v3_scale(pl[k].n, 0.05f));
    }
    thr_vec3 v;
    if (thr_rvo3d_lp3(pl, n, R, t, 0, &v) != n) {
      ++failed;
      continue;
    }
    double best = brute_closest(pl, n, R, D(t)), got = sqrt(ddot(dsub(D(v), D(t)), dsub(D(v), D(t))));
    if (max_viol(pl, 0, n, D(v)) > 1e-4 || v3_len(v) > R * (1.0f + 1e-5f)) ++infeasible;
    if (got > best + 1e-4) ++worse;
    if (got - best > largest_gap) largest_gap = got - best;
  }
  printf("3000 sets: %d failed, %d infeasible answers, %d worse than brute force (largest gap %.3g m/s)\n", failed,
         infeasible, worse, largest_gap);
  CHECK(failed == 0);
  CHECK(infeasible == 0);
  CHECK(worse == 0);
}

/* The smallest largest violation of planes [hard, n) over the sphere,
 * keeping planes [0, hard): a grid of the ball, then a shrinking random
 * search around the best point (double). */
static double brute_min_max_violation(const thr_rvo3d_plane *pl, int n, int hard, double R) {
  double best = HUGE_VAL;
  d3 bp = {0, 0, 0};
  const int G = 40;
  for (int a = 0; a <= G; ++a)
    for (int b = 0; b <= G; ++b)
      for (int c = 0; c <= G; ++c) {
        d3 p = {R * (2.0 * a / G - 1), R * (2.0 * b / G - 1), R * (2.0 * c / G - 1)};
        if (ddot(p, p) > R * R || (hard && max_viol(pl, 0, hard, p) > 0)) continue;
        double h = max_viol(pl, hard, n, p);
        if (h < best) best = h, bp = p;
      }
  for (double step = 2 * R / G; step > 1e-7; step *= 0.7)
    for (int k = 0; k < 200; ++k) {
      thr_vec3 r = rand_ball(step);
      d3 p = dadd(bp, D(r));
      if (ddot(p, p) > R * R || (hard && max_viol(pl, 0, hard, p) > 0)) continue;
      double h = max_viol(pl, hard, n, p);
      if (h < best) best = h, bp = p;
    }
  return best;
}

/* Two half-spaces that contradict (v_x >= 1 and v_x <= -1): the fallback
 * splits the difference, v_x = 0, both violated by 1 m/s, inside the
 * sphere. */
THR_TEST(fallback_splits_a_contradiction) {
  thr_rvo3d_plane pl[2] = {{v3(1.0f, 0.0f, 0.0f), v3(1.0f, 0.0f, 0.0f)}, {v3(-1.0f, 0.0f, 0.0f), v3(-1.0f, 0.0f, 0.0f)}};
  thr_rvo3d_plane scratch[2];
  thr_vec3 v;
  CHECK(thr_rvo3d_solve(pl, 2, 0, 2.0f, v3(0.5f, 0.3f, 0.0f), scratch, &v) == 0);
  CHECK_NEAR(v.x, 0.0, 1e-6);
  CHECK_NEAR(thr_rvo3d_violation(&pl[0], v), 1.0, 1e-6);
  CHECK_NEAR(thr_rvo3d_violation(&pl[1], v), 1.0, 1e-6);
  CHECK(v3_len(v) <= 2.0f * (1.0f + 1e-6f));
}

/* Random infeasible sets (half-spaces whose feasible sides lie beyond the
 * sphere, or contradict), with two hard planes (a floor and a ceiling of
 * the vertical velocity, as the pass adds): LP3 fails, the fallback keeps
 * the sphere and the hard planes, and its largest violation of the others
 * is the brute-force minimum (within 1e-3 m/s). */
THR_TEST(fallback_minimises_the_largest_violation) {
  const float R = 1.5f;
  int checked = 0, worse = 0, outside = 0, hard_broken = 0;
  double largest_gap = -1.0;
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + 2 + trial % 6; /* 2 hard, then 2-7 soft */
    thr_rvo3d_plane pl[10], scratch[10];
    pl[0].n = v3(0.0f, 0.0f, 1.0f), pl[0].q = v3(0.0f, 0.0f, -0.5f); /* v_z >= -0.5 */
    pl[1].n = v3(0.0f, 0.0f, -1.0f), pl[1].q = v3(0.0f, 0.0f, 0.7f); /* v_z <= 0.7 */
    for (int k = 2; k < n; ++k) {
      pl[k].n = rand_unit();
      pl[k].q = v3_scale(pl[k].n, (float)(0.5 + 1.5 * urand())); /* the feasible side starts 0.5-2 m/s out */
      if (k % 3 == 0) pl[k].q = v3_scale(pl[k].n, (float)(R * 0.5 * urand()));
    }
    thr_vec3 v;
    if (thr_rvo3d_solve(pl, n, 2, R, rand_ball(R), scratch, &v)) continue; /* feasible after all */
    ++checked;
    double best = brute_min_max_violation(pl, n, 2, R), got = max_viol(pl, 2, n, D(v));
    if (v3_len(v) > R * (1.0f + 1e-5f)) ++outside;
    if (max_viol(pl, 0, 2, D(v)) > 1e-5) ++hard_broken;
    if (got > best + 1e-3) ++worse;
    if (got - best > largest_gap) largest_gap = got - best;
  }
  printf("%d infeasible sets: %d outside the sphere, %d breaking a hard plane, %d worse than brute force by > 1e-3 "
         "(largest gap %.3g m/s)\n",
         checked, outside, hard_broken, worse, largest_gap);
  CHECK(checked >= 100);
  CHECK(outside == 0);
  CHECK(hard_broken == 0);
  CHECK(worse == 0);
}
