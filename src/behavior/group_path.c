#include "group_path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int thr_path_resample(const thr_vec2 *pts, int n, float min_spacing, thr_vec2 *out) {
  if (n < 1) return 0;
  int m = 0;
  out[m++] = pts[0];
  for (int k = 1; k < n; ++k) {
    int last = k == n - 1;
    if (v2_len(v2_sub(pts[k], out[m - 1])) >= min_spacing)
      out[m++] = pts[k];
    else if (last && m > 1)
      out[m - 1] = pts[k]; /* the destination replaces the kept point too close to it */
    else if (last)
      out[m++] = pts[k]; /* ... but not the first point */
  }
  return m;
}

int thr_group_path_init(thr_group_path *g, const thr_vec2 *pts, int n, float min_spacing, thr_vec2 p0) {
  memset(g, 0, sizeof *g);
  if (n < 1) return -1;
  g->pts = malloc((size_t)n * sizeof *g->pts);
  if (!g->pts) return -1;
  g->n = thr_path_resample(pts, n, min_spacing, g->pts);
  g->pos = p0;
  float best = HUGE_VALF;
  for (int k = 0; k < g->n; ++k) {
    float d2 = v2_len2(v2_sub(g->pts[k], p0));
    if (d2 < best) {
      best = d2;
      g->waypoint = k;
    }
  }
  return 0;
}

void thr_group_path_free(thr_group_path *g) {
  free(g->pts);
  memset(g, 0, sizeof *g);
}

thr_vec2 thr_group_path_step(thr_group_path *g, float speed, float dt, float waypoint_radius) {
  float reach = speed * dt;
  float radius = reach > waypoint_radius ? reach : waypoint_radius;
  thr_vec2 to = v2_sub(g->pts[g->waypoint], g->pos);
  if (g->waypoint < g->n - 1 && v2_len(to) <= radius) {
    g->waypoint++;
    to = v2_sub(g->pts[g->waypoint], g->pos);
  }
  float dist = v2_len(to);
  g->step = v2(0.0f, 0.0f);
  if (dist > 0.0f) {
    /* no overshoot: the last step lands exactly on the point */
    g->step = dist <= reach ? to : v2_scale(to, reach / dist);
    g->pos = dist <= reach ? g->pts[g->waypoint] : v2_add(g->pos, g->step);
  }
  g->arrived = g->waypoint == g->n - 1 && g->pos.x == g->pts[g->waypoint].x && g->pos.y == g->pts[g->waypoint].y;
  return g->step;
}
