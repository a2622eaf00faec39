/* HDF5 files written by every rank together (trajectories, checkpoints).
 * Included only where THRONG_HAVE_HDF5 is set.
 *
 * With a parallel HDF5 and several ranks, every rank writes its own rows
 * of each table collectively through MPI-IO (no gather); with a serial
 * HDF5 (or one rank) rank 0 writes, receiving the other ranks' rows. The
 * file is written as PATH.tmp and renamed to PATH by thr_h5_commit, so PATH
 * is complete or absent. Every function is collective and returns the same
 * result on every rank: 0, or -1 with "PATH: what failed: why" in err. */
#ifndef THRONG_H5IO_H
#define THRONG_H5IO_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

typedef struct thr_h5 {
  hid_t file;   /* H5I_INVALID_HID on ranks that do not write */
  MPI_Comm comm;
  int rank, nranks;
  int parallel; /* every rank writes (parallel HDF5 and several ranks) */
  int writer;   /* this rank makes HDF5 calls */
  int deflate;  /* 0: no filters; 1-9: shuffle + deflate at this level */
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  int reserve_fd; /* rank 0: disk space set aside for closing the file (-1: none) */
  char *err;
  size_t errlen;
} thr_h5;

/* Create PATH.tmp (replacing one left by an earlier failure), and set
 * aside THR_H5_RESERVE bytes of disk beside it (an unlinked file, freed when
 * the process ends): on a full disk, closing an HDF5 file writes its
 * metadata, and a close that fails leaves the library in a state that
 * crashes at MPI_Finalize. Commit and discard free the reserve first. */
int thr_h5_create(thr_h5 *h, MPI_Comm comm, const char *path, int deflate, char *err, size_t errlen);
enum { THR_H5_RESERVE = 8 << 20 };
/* Free the reserve now (a run that hit a full disk, before it closes). */
void thr_h5_release_reserve(thr_h5 *h);
/* Flush what was written to disk (a killed run keeps it). */
int thr_h5_flush(thr_h5 *h);
/* Close and rename PATH.tmp to PATH; on failure the temporary is removed. */
int thr_h5_commit(thr_h5 *h);
/* Close and remove PATH.tmp (after a failure; never fails: the file is
 * emptied first, so that closing it needs no disk space). */
void thr_h5_discard(thr_h5 *h);

/* A table that grows by rows: 1-D (cols 0) or rows of `cols` values, of
 * file type `type`, chunks of chunk_rows rows, filtered as h->deflate says.
 * *dset is H5I_INVALID_HID on ranks that do not write. name may have a
 * group path whose groups exist. */
int thr_h5_table(thr_h5 *h, const char *name, hid_t type, int cols, hsize_t chunk_rows, hid_t *dset);
/* Append every rank's n_local rows (row_bytes each, memory type memtype;
 * cols as at creation) in rank order; *first is the first new row, *total
 * the rows all ranks added (both may be NULL). */
int thr_h5_append(thr_h5 *h, hid_t dset, hid_t memtype, size_t row_bytes, int cols, size_t n_local,
                  const void *rows, uint64_t *first, uint64_t *total);
/* A table of bytes written whole by rank 0 (packed host state, text). */
int thr_h5_bytes(thr_h5 *h, const char *name, const void *data, size_t n);
void thr_h5_close_dataset(hid_t *dset);

/* Attributes of obj (the file when obj is 0), the same value on every
 * rank. */
int thr_h5_attr_string(thr_h5 *h, hid_t obj, const char *name, const char *value);
int thr_h5_attr_f64(thr_h5 *h, hid_t obj, const char *name, double value);
int thr_h5_attr_i64(thr_h5 *h, hid_t obj, const char *name, int64_t value);
int thr_h5_group(thr_h5 *h, const char *name);

/* rc (0 or -1) of every rank: -1 on every rank when any failed, with the
 * first failing rank's message. */
int thr_h5_agree(thr_h5 *h, int rc);

/* Why the last HDF5 call failed (the innermost message of the error
 * stack, or errno's text) into buf. */
void thr_h5_reason(char *buf, size_t len);

/* Silence HDF5's own error printing (every failure becomes one message of
 * ours). */
void thr_h5_quiet(void);

#endif
