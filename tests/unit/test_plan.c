/* Communication plans (decomp/plan.h) built without MPI: which items go to
 * which peer, in which order, and where received items land. */
#include "check.h"
#include "decomp/plan.h"

/* Three peers; candidates 10..14 with masks choosing peers. Peer 0 gets
 * 10, 12; peer 1 gets 11, 12, 14; peer 2 nothing. */
THR_TEST(halo_plan_by_mask) {
  thr_comm_plan p;
  thr_plan_init(&p);
  int ranks[3] = {1, 4, 7};
  CHECK(thr_plan_reset(&p, 3, ranks) == 0);
  int cand[5] = {10, 11, 12, 13, 14};
  uint64_t mask[5] = {1, 2, 3, 0, 2};
  CHECK(thr_plan_append_by_mask(&p, 0, 3, 5, cand, mask) == 0);
  CHECK(p.n_send == 5);
  CHECK(p.send_count[0] == 2 && p.send_offset[0] == 0);
  CHECK(p.send_count[1] == 3 && p.send_offset[1] == 2);
  CHECK(p.send_count[2] == 0 && p.send_offset[2] == 5);
  int want[5] = {10, 12, 11, 12, 14};
  for (int k = 0; k < 5; ++k) CHECK(p.export_list[k] == want[k]);
  thr_plan_free(&p);
}

/* More than 64 peers: masks come in blocks of 64, appended in peer order. */
THR_TEST(halo_plan_blocks_of_64) {
  thr_comm_plan p;
  thr_plan_init(&p);
  int ranks[70];
  for (int r = 0; r < 70; ++r) ranks[r] = r + 1;
  CHECK(thr_plan_reset(&p, 70, ranks) == 0);
  int cand[2] = {3, 5};
  uint64_t first[2] = {(uint64_t)1 << 63, 1}; /* peer 63 <- 3, peer 0 <- 5 */
  uint64_t second[2] = {0x20, 0x20};          /* peer 69 <- 3, 5 */
  CHECK(thr_plan_append_by_mask(&p, 0, 64, 2, cand, first) == 0);
  CHECK(thr_plan_append_by_mask(&p, 64, 6, 2, cand, second) == 0);
  CHECK(p.n_send == 4);
  CHECK(p.send_count[0] == 1 && p.export_list[p.send_offset[0]] == 5);
  CHECK(p.send_count[63] == 1 && p.export_list[p.send_offset[63]] == 3);
  CHECK(p.send_count[69] == 2 && p.send_offset[69] == 2);
  CHECK(p.export_list[2] == 3 && p.export_list[3] == 5);
  thr_plan_free(&p);
}

/* Migration: items grouped by destination peer, candidate order kept
 * within a peer; -1 goes nowhere. */
THR_TEST(migration_plan_by_peer) {
  thr_comm_plan p;
  thr_plan_init(&p);
  int ranks[3] = {0, 2, 3};
  CHECK(thr_plan_reset(&p, 3, ranks) == 0);
  int dest[7] = {2, 0, -1, 2, 1, 0, 2};
  CHECK(thr_plan_build_by_peer(&p, 7, dest) == 0);
  CHECK(p.n_send == 6);
  CHECK(p.send_count[0] == 2 && p.send_count[1] == 1 && p.send_count[2] == 3);
  CHECK(p.send_offset[0] == 0 && p.send_offset[1] == 2 && p.send_offset[2] == 3);
  int want[6] = {1, 5, 4, 0, 3, 6};
  for (int k = 0; k < 6; ++k) CHECK(p.export_list[k] == want[k]);
  thr_plan_free(&p);
}

/* The receive side: offsets in peer order; a plan can be reset and reused. */
THR_TEST(receive_offsets_and_reuse) {
  thr_comm_plan p;
  thr_plan_init(&p);
  int ranks[4] = {2, 5, 6, 9};
  CHECK(thr_plan_reset(&p, 4, ranks) == 0);
  int counts[4] = {3, 0, 4, 1};
  thr_plan_set_recv(&p, counts);
  CHECK(p.n_recv == 8);
  CHECK(p.recv_offset[0] == 0 && p.recv_offset[1] == 3 && p.recv_offset[2] == 3 && p.recv_offset[3] == 7);
  CHECK(thr_plan_reset(&p, 2, ranks) == 0);
  CHECK(p.n_recv == 0 && p.n_send == 0 && p.send_count[0] == 0 && p.recv_count[1] == 0);
  thr_plan_free(&p);
}

/* Items packed elsewhere in peer order (the device exchange): the same
 * counts and offsets as a plan built from the items, and no export list. */
THR_TEST(set_send_matches_build_by_peer) {
  thr_comm_plan a, b;
  thr_plan_init(&a);
  thr_plan_init(&b);
  int ranks[3] = {1, 4, 7};
  CHECK(thr_plan_reset(&a, 3, ranks) == 0);
  CHECK(thr_plan_reset(&b, 3, ranks) == 0);
  int dest[7] = {2, 0, -1, 2, 0, 2, 1};
  CHECK(thr_plan_build_by_peer(&a, 7, dest) == 0);
  size_t counts[3] = {2, 1, 3};
  thr_plan_set_send(&b, counts);
  CHECK(b.n_send == a.n_send && b.n_send == 6);
  for (int j = 0; j < 3; ++j) CHECK(b.send_count[j] == a.send_count[j] && b.send_offset[j] == a.send_offset[j]);
  CHECK(b.send_offset[2] == 3);
  thr_plan_free(&a);
  thr_plan_free(&b);
}

THR_TEST(peer_index) {
  thr_comm_plan p;
  thr_plan_init(&p);
  int ranks[5] = {0, 3, 4, 8, 11};
  CHECK(thr_plan_reset(&p, 5, ranks) == 0);
  CHECK(thr_plan_peer_index(&p, 0) == 0);
  CHECK(thr_plan_peer_index(&p, 8) == 3);
  CHECK(thr_plan_peer_index(&p, 11) == 4);
  CHECK(thr_plan_peer_index(&p, 5) == -1);
  CHECK(thr_plan_peer_index(&p, 12) == -1);
  CHECK(thr_plan_reset(&p, 0, ranks) == 0);
  CHECK(thr_plan_peer_index(&p, 0) == -1);
  thr_plan_free(&p);
}
