/* A communication plan: who sends what to whom, built once and applied as
 * often as needed (after Cabana's Halo/Distributor and LAMMPS's borders()/
 * forward_comm()). Pure data and pure functions, no MPI: unit tests build
 * and check plans without any rank (tests/unit/test_plan.c); exchange.h
 * applies them.
 *
 * A plan lists its peer ranks (ascending); for each peer, how many items go
 * to it (a slice of the export list) and how many come from it (a slice of
 * the receive buffer). Items are whatever the caller numbers: agent indices
 * for the halo, positions in a list of extracted records for migration. The
 * export list is grouped by peer, in candidate order within a peer, so the
 * packed buffer of the plan is the concatenation of the messages. */
#ifndef THRONG_PLAN_H
#define THRONG_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct thr_comm_plan {
  int n_peers;
  int *peer;        /* [n_peers] ranks, ascending */
  int *send_count;  /* [n_peers] */
  int *send_offset; /* [n_peers] into export_list */
  int *recv_count;  /* [n_peers] */
  int *recv_offset; /* [n_peers] into the receive buffer */
  int *export_list; /* [n_send] items, grouped by peer */
  size_t n_send, n_recv;
  size_t peer_cap, export_cap;
} thr_comm_plan;

void thr_plan_init(thr_comm_plan *p);
void thr_plan_free(thr_comm_plan *p);

/* Start a plan over these peers (ranks ascending): nothing to send or
 * receive yet. Returns -1 when out of memory. */
int thr_plan_reset(thr_comm_plan *p, int n_peers, const int *ranks);

/* Halo: candidate t (item cand[t]) goes to peer first + j for every bit j
 * of mask[t] (j < npeers <= 64). Called for consecutive blocks of up to 64
 * peers, in peer order; each peer's items stay in candidate order. Returns
 * -1 when out of memory. */
int thr_plan_append_by_mask(thr_comm_plan *p, int first, int npeers, size_t n, const int *cand,
                            const uint64_t *mask);

/* Migration: candidate t (item t) goes to peer dest[t] (an index into the
 * peers), or nowhere when dest[t] < 0. Each peer's items stay in candidate
 * order. Returns -1 when out of memory. */
int thr_plan_build_by_peer(thr_comm_plan *p, size_t n, const int *dest);

/* Items already packed in peer order elsewhere (the backend's memory):
 * send_count[j] of them go to peer j; offsets follow in peer order and the
 * export list stays empty. */
void thr_plan_set_send(thr_comm_plan *p, const size_t *send_count);

/* The receive side, once the counts are known: recv_count[j] items come
 * from peer j; offsets follow in peer order. */
void thr_plan_set_recv(thr_comm_plan *p, const int *recv_count);

/* Index of rank r among the peers, or -1 (binary search). */
int thr_plan_peer_index(const thr_comm_plan *p, int rank);

#endif
