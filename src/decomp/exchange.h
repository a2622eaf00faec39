/* Applying communication plans (plan.h) with MPI point-to-point: the counts
 * of a plan, and its items. The one file of throng that posts MPI
 * point-to-point messages. */
#ifndef THRONG_EXCHANGE_H
#define THRONG_EXCHANGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* Message tags, one per kind of message so that kinds never mix. */
enum { THR_TAG_COUNTS = 7100, THR_TAG_MIGRATE, THR_TAG_GHOST, THR_TAG_HALO /* + field number */ };

/* Tell every peer how many items it gets (send_count) and learn how many
 * come from it; sets the plan's receive side (thr_plan_set_recv). With
 * `all_ranks` the peers are every other rank and the counts go through one
 * MPI_Alltoall (after a re-partition, when an agent may go anywhere);
 * otherwise through messages to the peers only. req holds 2 * n_peers
 * requests. Returns -1 when out of memory. */
int thr_plan_exchange_counts(MPI_Comm comm, thr_comm_plan *p, int all_ranks, MPI_Request *req);

/* The same, each count with two numbers (the sum and sum of squares of
 * the ids sent: the conservation check's running sums follow migrations
 * whose records the host never sees): send[3j..3j+2] = {count, sum, sq}
 * for peer j (count = send_count[j]), recv the same from it. */
void thr_plan_exchange_tallies(MPI_Comm comm, thr_comm_plan *p, uint64_t *send, uint64_t *recv, MPI_Request *req);

/* Post the plan's receives and sends of items of `type` (elem bytes each):
 * `send` holds the items packed in export order, `recv` receives them in
 * the plan's receive order. Writes at most 2 * n_peers requests to req and
 * returns how many (wait for them with MPI_Waitall). */
int thr_plan_post(MPI_Comm comm, const thr_comm_plan *p, const void *send, void *recv, MPI_Datatype type,
                  size_t elem, int tag, MPI_Request *req);

#endif
