/* The step's neighbour lists (thr_agent_step_lists) against brute force,
 * and the solver passes with lists against the same passes scanning the
 * grid: equal bit for bit, including agents with more neighbours than the
 * lists hold. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "io/config.h"
#include "kernels/cpu/cell_sort.h"
#include "kernels/passes.h"
#include "kernels/rng.h"

typedef struct crowd {
  int n;
  thr_vec2 *x, *p;
  uint32_t *id;
  float *radius, *inv_mass;
  int *cell, *order, *offset, *cursor, *slot; /* slot: position of agent i in `order` */
  thr_list_entry *lr, *ct;
  int *count;
  thr_ctx c;
} crowd;

/* n agents in a w x w square (ids shuffled, radii 0.2-0.3 m, x* a small
 * random step from x), plus `packed` agents in a 0.6 m square at its
 * centre, more than the lists hold; neighbour cells of cell_size (0: the
 * contact distance plus the skin). */
static void crowd_make(crowd *cr, int n, float w, int packed, uint64_t seed, float cell_size) {
  int m = n + packed;
  cr->n = m;
  cr->x = malloc((size_t)m * sizeof(thr_vec2));
  cr->p = malloc((size_t)m * sizeof(thr_vec2));
  cr->id = malloc((size_t)m * sizeof(uint32_t));
  cr->radius = malloc((size_t)m * sizeof(float));
  cr->inv_mass = malloc((size_t)m * sizeof(float));
  cr->cell = malloc((size_t)m * sizeof(int));
  cr->order = malloc((size_t)m * sizeof(int));
  cr->slot = malloc((size_t)m * sizeof(int));
  cr->count = malloc((size_t)m * sizeof(int));
  cr->lr = malloc((size_t)m * THR_LR_CAP * sizeof(thr_list_entry));
  cr->ct = malloc((size_t)m * THR_CT_CAP * sizeof(thr_list_entry));
  for (int i = 0; i < m; ++i) {
    float side = i < n ? w : 0.6f, o = i < n ? 0.0f : 0.5f * (w - 0.6f);
    cr->x[i].x = o + side * thr_rng_uniform(seed, (uint64_t)i, 0, 1);
    cr->x[i].y = o + side * thr_rng_uniform(seed, (uint64_t)i, 0, 2);
    cr->p[i].x = cr->x[i].x + 0.05f * (thr_rng_uniform(seed, (uint64_t)i, 0, 3) - 0.5f);
    cr->p[i].y = cr->x[i].y + 0.05f * (thr_rng_uniform(seed, (uint64_t)i, 0, 4) - 0.5f);
    cr->radius[i] = 0.2f + 0.1f * thr_rng_uniform(seed, (uint64_t)i, 0, 5);
    cr->inv_mass[i] = 1.0f;
    cr->id[i] = (uint32_t)i;
  }
  for (int i = m - 1; i > 0; --i) {
    int j = (int)(thr_rng_u64(seed, (uint64_t)i, 0, 6) % (uint64_t)(i + 1));
    uint32_t t = cr->id[i];
    cr->id[i] = cr->id[j];
    cr->id[j] = t;
  }
  thr_ctx *c = &cr->c;
  memset(c, 0, sizeof *c);
  thr_params_defaults(&c->prm);
  c->prm.longrange_on = c->prm.avoidance_on = c->prm.contact_on = c->prm.friction_on = 1;
  c->prm.lr_radius = c->prm.av_radius = 1.5f;
  c->prm.walls_on = 0;
  float cell = cell_size > 0.0f ? cell_size : 2.0f * 0.3f * c->prm.radius_scale + c->prm.skin;
  c->grid.cell = cell;
  c->grid.gnx = c->grid.gny = c->grid.nx = c->grid.ny = (int)ceilf(w / cell);
  c->k_contact = thr_rings(2.0f * 0.3f * c->prm.radius_scale, c->prm.skin, cell, 1 << 20);
  c->k_longrange = thr_rings(1.5f, c->prm.skin, cell, 1 << 20);
  size_t ncell = (size_t)c->grid.nx * (size_t)c->grid.ny;
  cr->offset = malloc((ncell + 1) * sizeof(int));
  cr->cursor = malloc(ncell * sizeof(int));
  for (int i = 0; i < m; ++i) cr->cell[i] = thr_local_cell(&c->grid, cr->p[i]);
  thr_cell_sort(cr->cell, cr->id, (size_t)m, ncell, cr->offset, cr->order, cr->cursor);
  for (int t = 0; t < m; ++t) cr->slot[cr->order[t]] = t;
  c->grid.offset = cr->offset;
  c->grid.order = cr->order;
  c->grid.cell_of = cr->cell;
  c->id = cr->id;
  c->radius = cr->radius;
  c->inv_mass = cr->inv_mass;
  c->x = cr->x;
  c->p = cr->p;
  for (int i = 0; i < m; ++i)
    cr->count[i] = thr_agent_step_lists(c, i, cr->lr + (size_t)i * THR_LR_CAP, cr->ct + (size_t)i * THR_CT_CAP, 1);
}

static void crowd_free(crowd *cr) {
  void *p[] = {cr->x,     cr->p,      cr->id,     cr->radius, cr->inv_mass, cr->cell, cr->order,
               cr->slot,  cr->count,  cr->lr,     cr->ct,     cr->offset,   cr->cursor};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) free(p[k]);
}

/* Is j within the k rings of cells around agent i's cell? */
static int in_rings(const crowd *cr, int i, int j, int k) {
  int nx = cr->c.grid.nx;
  int dx = cr->cell[j] % nx - cr->cell[i] % nx, dy = cr->cell[j] / nx - cr->cell[i] / nx;
  return abs(dx) <= k && abs(dy) <= k;
}

/* Agent i's expected list, by brute force: every j in the rings passing the
 * filter, in canonical order (ascending slot of the (cell, id) sort). */
static int expected(const crowd *cr, int i, int contact, int *out, int cap) {
  int n = 0;
  float rad = thr_lr_search_radius(&cr->c.prm);
  for (int t = 0; t < cr->n; ++t) {
    int j = cr->order[t];
    if (j == i) continue;
    float d2 = v2_len2(v2_sub(cr->x[i], cr->x[j]));
    int keep = contact ? in_rings(cr, i, j, cr->c.k_contact) &&
                             d2 <= thr_contact_reach2(&cr->c.prm, cr->radius[i] + cr->radius[j])
                       : in_rings(cr, i, j, cr->c.k_longrange) && d2 <= rad * rad;
    if (!keep) continue;
    if (n < cap) out[n] = contact && !(cr->id[i] < cr->id[j]) ? -1 - j : j; /* -1 - j: tie -1 */
    n++;
  }
  return n;
}

/* Does agent i's list of n entries, read back (thr_list_decode), hold the
 * indices `want` (contact lists: -1 - j where the tie is -1)? */
static int list_is(int i, const thr_list_entry *list, int bits, const int *want, int n) {
  for (int e = 0; e < n; ++e) {
    int j = i + thr_list_decode(list[e], bits);
    if ((bits == THR_CT_ENTRY_BITS && (list[e] & THR_CT_TIE_BIT) ? -1 - j : j) != want[e]) return 0;
  }
  return 1;
}

THR_TEST(lists_match_brute_force) {
  crowd cr;
  crowd_make(&cr, 1500, 28.0f, 0, 11, 0.0f);
  int want[THR_LR_CAP], bad = 0, total_lr = 0, total_ct = 0, max_lr = 0;
  for (int i = 0; i < cr.n; ++i) {
    int nlr = cr.count[i] & 0xffff, nct = cr.count[i] >> 16;
    int elr = expected(&cr, i, 0, want, THR_LR_CAP);
    CHECK(elr <= THR_LR_CAP); /* 2 agents/m^2: every list complete */
    if (nlr != elr || !list_is(i, cr.lr + (size_t)i * THR_LR_CAP, THR_LR_ENTRY_BITS, want, elr)) bad++;
    int ect = expected(&cr, i, 1, want, THR_CT_CAP);
    CHECK(ect <= THR_CT_CAP);
    if (nct != ect || !list_is(i, cr.ct + (size_t)i * THR_CT_CAP, THR_CT_ENTRY_BITS, want, ect)) bad++;
    total_lr += elr;
    total_ct += ect;
    if (elr > max_lr) max_lr = elr;
  }
  CHECK(bad == 0);
  CHECK(total_lr > 10 * cr.n); /* about pi 1.5^2 2 = 14 each: the lists are not trivially empty */
  CHECK(total_ct > cr.n);
  printf("%d agents: %d long-range entries (max %d), %d contact entries, %d lists differ\n", cr.n, total_lr, max_lr,
         total_ct, bad);
  crowd_free(&cr);
}

/* The long-range and contact passes of every agent with the lists and
 * without (scanning the grid): how many results differ; the incomplete
 * lists of each kind counted into *over_lr, *over_ct. */
static int passes_differ(const crowd *cr, int *over_lr, int *over_ct) {
  thr_ctx with = cr->c, without = cr->c;
  with.lr_list = cr->lr;
  with.ct_list = cr->ct;
  with.list_count = cr->count;
  with.lr_si = THR_LR_CAP;
  with.ct_si = THR_CT_CAP;
  with.list_sk = 1;
  int differ = 0;
  *over_lr = *over_ct = 0;
  for (int i = 0; i < cr->n; ++i) {
    *over_lr += (cr->count[i] & 0xffff) > THR_LR_CAP;
    *over_ct += (cr->count[i] >> 16) > THR_CT_CAP;
    thr_vec2 a = thr_agent_long_range(&with, i), b = thr_agent_long_range(&without, i);
    thr_vec2 e = thr_agent_contact(&with, i), f = thr_agent_contact(&without, i);
    differ += memcmp(&a, &b, sizeof a) != 0 || memcmp(&e, &f, sizeof e) != 0;
  }
  return differ;
}

/* The passes read the lists where they are complete and scan the grid where
 * they overflowed; either way the result equals the pass without lists. */
THR_TEST(passes_with_lists_equal_the_grid_scan) {
  crowd cr;
  crowd_make(&cr, 600, 18.0f, 80, 5, 0.0f);
  int over_lr, over_ct, differ = passes_differ(&cr, &over_lr, &over_ct);
  CHECK(over_lr >= 80); /* the packed square overflows both lists */
  CHECK(over_ct >= 80);
  CHECK(over_lr < cr.n && over_ct < cr.n);
  CHECK(differ == 0);
  printf("%d agents, %d with too many long-range neighbours, %d with too many contact candidates, %d differ\n",
         cr.n, over_lr, over_ct, differ);
  crowd_free(&cr);
}

/* A list entry holds j - i in 16 bits (15 in the contact list, beside the
 * tie): where a neighbour is stored further away, the list is incomplete
 * and the pass scans the grid, to the same bits. 40,000 agents stored in
 * random order: a few per cent of the pairs are too far apart. */
THR_TEST(lists_that_do_not_fit_fall_back_to_the_grid_scan) {
  for (int bits = 15; bits <= 16; ++bits) {
    int half = 1 << (bits - 1);
    int d[] = {-half, -1, 1, half - 1};
    for (size_t k = 0; k < sizeof d / sizeof d[0]; ++k) {
      int e = thr_list_encode(d[k], bits);
      CHECK(e >= 0 && e < (1 << bits));
      CHECK(thr_list_decode((unsigned)e | (bits == 15 ? THR_CT_TIE_BIT : 0u), bits) == d[k]);
    }
    CHECK(thr_list_encode(half, bits) < 0);
    CHECK(thr_list_encode(-half - 1, bits) < 0);
  }
  crowd cr;
  crowd_make(&cr, 40000, 150.0f, 0, 7, 0.0f);
  int over_lr, over_ct, differ = passes_differ(&cr, &over_lr, &over_ct);
  /* 1.8 agents/m^2: no list is over its cap, so the incomplete ones are
   * those with a neighbour too far away in storage */
  CHECK(over_lr > cr.n / 20 && over_lr < cr.n);
  CHECK(over_ct > over_lr / 4 && over_ct < cr.n);
  CHECK(differ == 0);
  printf("%d agents stored in random order: %d long-range and %d contact lists incomplete, %d differ\n", cr.n,
         over_lr, over_ct, differ);
  crowd_free(&cr);
}
