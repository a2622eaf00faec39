#define _POSIX_C_SOURCE 200809L
#include "h5io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- errors ------------------------------------------------------------------- */

void thr_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

typedef struct reason_walk {
  char *buf;
  size_t len;
} reason_walk;

/* The innermost entry (the first walked downward) names the system call
 * or check that failed; keep the last one seen walking upward. */
static herr_t take_reason(unsigned n, const H5E_error2_t *e, void *user) {
  reason_walk *w = user;
  if (n == 0 && e->desc && *e->desc) snprintf(w->buf, w->len, "%s", e->desc);
  return 0;
}

void thr_h5_reason(char *buf, size_t len) {
  int saved = errno;
  buf[0] = '\0';
  reason_walk w = {buf, len};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, take_reason, &w);
  if (saved && (!buf[0] || !strstr(buf, strerror(saved)))) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", strerror(saved));
  }
  if (!buf[0]) snprintf(buf, len, "HDF5 error");
  H5Eclear2(H5E_DEFAULT);
}

static int fail(thr_h5 *h, const char *what) {
  char why[512];
  thr_h5_reason(why, sizeof why);
  snprintf(h->err, h->errlen, "%s: %s: %s", h->path, what, why);
  return -1;
}

int thr_h5_agree(thr_h5 *h, int rc) {
  int who = rc ? h->rank : h->nranks;
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, h->comm);
  if (who == h->nranks) return 0;
  if (h->nranks > 1) MPI_Bcast(h->err, (int)h->errlen, MPI_CHAR, who, h->comm);
  return -1;
}

/* ---- files --------------------------------------------------------------------- */

/* Allocate n bytes to fd: posix_fallocate, or zeros where the filesystem
 * cannot (its EOPNOTSUPP). 0, or an errno value. */
static int allocate(int fd, off_t n) {
  int e = posix_fallocate(fd, 0, n);
  if (e != EOPNOTSUPP && e != EINVAL) return e;
  static const char zeros[65536];
  for (off_t done = 0; done < n; done += (off_t)sizeof zeros)
    if (write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros) return errno ? errno : ENOSPC;
  return fsync(fd) ? errno : 0;
}

/* The reserve: an unlinked file of THR_H5_RESERVE bytes in PATH's directory. */
static int make_reserve(thr_h5 *h) {
  char name[THR_PATH_MAX + 32];
  snprintf(name, sizeof name, "%s.reserve-XXXXXX", h->path);
  h->reserve_fd = mkstemp(name);
  if (h->reserve_fd < 0) return fail(h, "cannot create the disk reserve beside the file");
  unlink(name);
  int e = allocate(h->reserve_fd, THR_H5_RESERVE);
  if (!e) return 0;
  close(h->reserve_fd);
  h->reserve_fd = -1;
  errno = e;
  char what[96];
  snprintf(what, sizeof what, "cannot set aside %d MiB of disk for closing the file", THR_H5_RESERVE >> 20);
  return fail(h, what);
}

void thr_h5_release_reserve(thr_h5 *h) {
  if (h->reserve_fd >= 0) close(h->reserve_fd);
  h->reserve_fd = -1;
}

int thr_h5_create(thr_h5 *h, MPI_Comm comm, const char *path, int deflate, char *err, size_t errlen) {
  memset(h, 0, sizeof *h);
  h->file = H5I_INVALID_HID;
  h->reserve_fd = -1;
  h->comm = comm;
  h->err = err;
  h->errlen = errlen;
  h->deflate = deflate;
  MPI_Comm_rank(comm, &h->rank);
  MPI_Comm_size(comm, &h->nranks);
#ifdef H5_HAVE_PARALLEL
  h->parallel = h->nranks > 1;
#endif
  h->writer = h->parallel || h->rank == 0;
  snprintf(h->path, sizeof h->path, "%s", path);
  snprintf(h->tmp, sizeof h->tmp, "%s.tmp", path);
  thr_h5_quiet();
  int rc = h->rank == 0 ? make_reserve(h) : 0;
  if (h->writer && !rc) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#ifdef H5_HAVE_PARALLEL
    if (h->parallel) H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
#endif
    /* the newest format the library writes: smaller metadata, faster appends */
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    errno = 0;
    h->file = H5Fcreate(h->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (h->file < 0) rc = fail(h, "cannot create the file");
  }
  if (thr_h5_agree(h, rc)) {
    thr_h5_discard(h);
    return -1;
  }
  return 0;
}

int thr_h5_flush(thr_h5 *h) {
  int rc = 0;
  errno = 0;
  if (h->writer && H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0) rc = fail(h, "cannot write to the file");
  return thr_h5_agree(h, rc);
}

int thr_h5_commit(thr_h5 *h) {
  int rc = 0;
  thr_h5_release_reserve(h);
  if (h->nranks > 1) MPI_Barrier(h->comm); /* freed before any rank closes */
  errno = 0;
  if (h->writer && h->file >= 0 && H5Fclose(h->file) < 0) rc = fail(h, "cannot write the end of the file");
  h->file = H5I_INVALID_HID;
  if (thr_h5_agree(h, rc)) {
    thr_h5_discard(h);
    return -1;
  }
  if (h->rank == 0 && rename(h->tmp, h->path)) {
    snprintf(h->err, h->errlen, "%s: cannot rename %s to it: %s", h->path, h->tmp, strerror(errno));
    remove(h->tmp);
    rc = -1;
  }
  return thr_h5_agree(h, rc);
}

void thr_h5_discard(thr_h5 *h) {
  thr_h5_release_reserve(h);
  /* emptied first: the close then writes only metadata into a sparse file,
   * which succeeds on a full disk (a failed H5Fclose crashes HDF5 later) */
  if (h->rank == 0 && h->file >= 0) (void)!truncate(h->tmp, 0);
  if (h->nranks > 1) MPI_Barrier(h->comm);
  if (h->writer && h->file >= 0) H5Fclose(h->file);
  H5Eclear2(H5E_DEFAULT);
  h->file = H5I_INVALID_HID;
  if (h->nranks > 1) MPI_Barrier(h->comm);
  if (h->rank == 0) remove(h->tmp);
}

/* ---- tables ---------------------------------------------------------------------- */

int thr_h5_table(thr_h5 *h, const char *name, hid_t type, int cols, hsize_t chunk_rows, hid_t *dset) {
  *dset = H5I_INVALID_HID;
  int rc = 0;
  if (h->writer) {
    int rank = cols ? 2 : 1;
    hsize_t dims[2] = {0, (hsize_t)cols}, maxd[2] = {H5S_UNLIMITED, (hsize_t)cols};
    hsize_t chunk[2] = {chunk_rows > 0 ? chunk_rows : 1, (hsize_t)cols};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (h->deflate > 0) {
      H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, (unsigned)h->deflate);
    }
    /* no fill writes: every row is written once */
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    errno = 0;
    *dset = H5Dcreate2(h->file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (*dset < 0) {
      char what[256];
      snprintf(what, sizeof what, "cannot create dataset %s", name);
      rc = fail(h, what);
    }
  }
  return thr_h5_agree(h, rc);
}

void thr_h5_close_dataset(hid_t *dset) {
  if (*dset >= 0) H5Dclose(*dset);
  *dset = H5I_INVALID_HID;
}

/* Write n rows at row `at` of dset (already large enough). */
static int write_rows(thr_h5 *h, hid_t dset, hid_t memtype, int cols, hsize_t at, hsize_t n, const void *rows,
                      int collective) {
  int rank = cols ? 2 : 1;
  hsize_t start[2] = {at, 0}, count[2] = {n, (hsize_t)cols};
  hid_t fspace = H5Dget_space(dset);
  hid_t mspace = H5Screate_simple(rank, count, NULL);
  if (n) {
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  } else {
    H5Sselect_none(fspace);
    H5Sselect_none(mspace);
  }
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
#ifdef H5_HAVE_PARALLEL
  if (collective) H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
#else
  (void)collective;
#endif
  errno = 0;
  herr_t st = thr_fault_write(h->path) ? -1 : H5Dwrite(dset, memtype, mspace, fspace, dxpl, rows);
  H5Pclose(dxpl);
  H5Sclose(mspace);
  H5Sclose(fspace);
  if (st < 0) {
    char name[256] = "?", what[320];
    H5Iget_name(dset, name, sizeof name);
    snprintf(what, sizeof what, "cannot write dataset %s", name);
    return fail(h, what);
  }
  return 0;
}

static hsize_t rows_now(hid_t dset) {
  hsize_t dims[2] = {0, 0};
  hid_t space = H5Dget_space(dset);
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  return dims[0];
}

static int extend(thr_h5 *h, hid_t dset, int cols, hsize_t rows) {
  hsize_t dims[2] = {rows, (hsize_t)cols};
  errno = 0;
  if (H5Dset_extent(dset, dims) < 0) return fail(h, "cannot extend a dataset");
  return 0;
}

int thr_h5_append(thr_h5 *h, hid_t dset, hid_t memtype, size_t row_bytes, int cols, size_t n_local,
                  const void *rows, uint64_t *first, uint64_t *total) {
  uint64_t mine = n_local, before = 0, all = n_local;
  if (h->nranks > 1) {
    MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, h->comm);
    if (h->rank == 0) before = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, h->comm);
  }
  uint64_t at = h->writer ? rows_now(dset) : 0;
  if (h->nranks > 1) MPI_Bcast(&at, 1, MPI_UINT64_T, 0, h->comm);
  if (first) *first = at;
  if (total) *total = all;
  int rc = 0;
  if (h->parallel) {
    rc = extend(h, dset, cols, at + all);
    if (!thr_h5_agree(h, rc)) rc = write_rows(h, dset, memtype, cols, at + before, n_local, rows, 1);
    return thr_h5_agree(h, rc);
  }
  if (h->nranks == 1) {
    rc = extend(h, dset, cols, at + all);
    if (!rc) rc = write_rows(h, dset, memtype, cols, at, n_local, rows, 0);
    return thr_h5_agree(h, rc);
  }
  /* serial HDF5 on several ranks: rank 0 receives and writes, a block of
   * rows at a time (MPI counts are int) */
  int *counts = NULL, *displs = NULL;
  void *buf = NULL;
  int n = (int)n_local;
  if (n_local > (size_t)INT32_MAX) {
    snprintf(h->err, h->errlen, "%s: %zu rows on one rank are more than a serial HDF5 build sends at once", h->path,
             n_local);
    rc = -1;
  }
  if (h->rank == 0) {
    counts = malloc((size_t)h->nranks * sizeof *counts);
    displs = malloc((size_t)h->nranks * sizeof *displs);
    buf = malloc((size_t)(all ? all : 1) * row_bytes);
    if (!counts || !displs || !buf) {
      snprintf(h->err, h->errlen, "%s: out of memory receiving %llu rows", h->path, (unsigned long long)all);
      rc = -1;
    }
  }
  if (thr_h5_agree(h, rc)) {
    free(counts);
    free(displs);
    free(buf);
    return -1;
  }
  MPI_Datatype t;
  MPI_Type_contiguous((int)row_bytes, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, h->comm);
  if (h->rank == 0) {
    int off = 0;
    for (int r = 0; r < h->nranks; ++r) {
      displs[r] = off;
      off += counts[r];
    }
  }
  MPI_Gatherv(rows, n, t, buf, counts, displs, t, 0, h->comm);
  MPI_Type_free(&t);
  if (h->rank == 0) {
    rc = extend(h, dset, cols, at + all);
    if (!rc) rc = write_rows(h, dset, memtype, cols, at, all, buf, 0);
  }
  free(counts);
  free(displs);
  free(buf);
  return thr_h5_agree(h, rc);
}

int thr_h5_bytes(thr_h5 *h, const char *name, const void *data, size_t n) {
  /* the dataset's creation is collective: every rank must ask for the same chunks */
  uint64_t len = n;
  if (h->nranks > 1) MPI_Bcast(&len, 1, MPI_UINT64_T, 0, h->comm);
  n = (size_t)len;
  hid_t d;
  if (thr_h5_table(h, name, H5T_STD_U8LE, 0, n > 0 && n < (1u << 20) ? n : (1u << 20), &d)) return -1;
  int rc = thr_h5_append(h, d, H5T_NATIVE_UCHAR, 1, 0, h->rank == 0 ? n : 0, data, NULL, NULL);
  thr_h5_close_dataset(&d);
  return rc;
}

/* ---- attributes ------------------------------------------------------------------ */

static int attr(thr_h5 *h, hid_t obj, const char *name, hid_t type, const void *value) {
  int rc = 0;
  if (h->writer) {
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t where = obj > 0 ? obj : h->file;
    if (H5Aexists(where, name) > 0) H5Adelete(where, name);
    hid_t a = H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, type, value) < 0) {
      char what[160];
      snprintf(what, sizeof what, "cannot write attribute %s", name);
      rc = fail(h, what);
    }
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
  }
  return thr_h5_agree(h, rc);
}

int thr_h5_attr_string(thr_h5 *h, hid_t obj, const char *name, const char *value) {
  /* variable length, as h5py writes Python strings: readers get a str */
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  int rc = attr(h, obj, name, t, &value);
  H5Tclose(t);
  return rc;
}

int thr_h5_attr_f64(thr_h5 *h, hid_t obj, const char *name, double value) {
  return attr(h, obj, name, H5T_NATIVE_DOUBLE, &value);
}

int thr_h5_attr_i64(thr_h5 *h, hid_t obj, const char *name, int64_t value) {
  return attr(h, obj, name, H5T_NATIVE_INT64, &value);
}

int thr_h5_group(thr_h5 *h, const char *name) {
  int rc = 0;
  if (h->writer) {
    hid_t g = H5Gcreate2(h->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
      char what[160];
      snprintf(what, sizeof what, "cannot create group %s", name);
      rc = fail(h, what);
    } else {
      H5Gclose(g);
    }
  }
  return thr_h5_agree(h, rc);
}
