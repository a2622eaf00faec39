#include "nccl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NCCL's ABI as its header declares it: results and data types are enums,
 * communicators and streams pointers, the unique id 128 bytes by value. */
typedef struct nccl_id {
  char internal[128];
} nccl_id;
enum { NCCL_SUCCESS = 0, NCCL_INT8 = 0 };

struct thr_nccl {
  void *lib;
  void *comm;
  int rank;
  int error; /* first failure since begin */
  int result;
  char name[32];
  int (*get_version)(int *);
  int (*get_unique_id)(nccl_id *);
  int (*comm_init_rank)(void **, int, nccl_id, int);
  int (*comm_destroy)(void *);
  int (*send)(const void *, size_t, int, int, void *, void *);
  int (*recv)(void *, size_t, int, int, void *, void *);
  int (*group_start)(void);
  int (*group_end)(void);
  const char *(*error_string)(int);
};

#ifndef THRONG_NCCL_LIBRARY
#define THRONG_NCCL_LIBRARY ""
#endif

static int load(thr_nccl *n, const char *library, char *why, size_t whylen) {
  const char *names[] = {library, THRONG_NCCL_LIBRARY, "libnccl.so.2", "libnccl.so"};
  const char *err = "no library named";
  for (size_t k = 0; k < sizeof names / sizeof names[0] && !n->lib; ++k) {
    if (!names[k] || !*names[k]) continue;
    n->lib = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) err = dlerror();
    if (!n->lib && k == 0) break; /* a library the user named must load */
  }
  if (!n->lib) {
    snprintf(why, whylen, "cannot load libnccl (%s); set THRONG_NCCL_LIBRARY to its path", err);
    return -1;
  }
  struct {
    const char *name;
    void **fn;
  } syms[] = {
      {"ncclGetVersion", (void **)&n->get_version},       {"ncclGetUniqueId", (void **)&n->get_unique_id},
      {"ncclCommInitRank", (void **)&n->comm_init_rank}, {"ncclCommDestroy", (void **)&n->comm_destroy},
      {"ncclSend", (void **)&n->send},                    {"ncclRecv", (void **)&n->recv},
      {"ncclGroupStart", (void **)&n->group_start},       {"ncclGroupEnd", (void **)&n->group_end},
      {"ncclGetErrorString", (void **)&n->error_string},
  };
  for (size_t k = 0; k < sizeof syms / sizeof syms[0]; ++k) {
    *syms[k].fn = dlsym(n->lib, syms[k].name);
    if (!*syms[k].fn) {
      snprintf(why, whylen, "libnccl lacks %s (NCCL 2.7 or later is needed)", syms[k].name);
      return -1;
    }
  }
  int v = 0;
  n->get_version(&v);
  /* 2.9+: MAJOR*10000 + MINOR*100 + PATCH */
  snprintf(n->name, sizeof n->name, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  return 0;
}

/* Did every rank succeed? On failure, ranks that did say who did not. */
static int all_ok(MPI_Comm comm, int ok, char *why, size_t whylen) {
  int all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (ok && !all) snprintf(why, whylen, "NCCL failed on another rank");
  return all;
}

thr_nccl *thr_nccl_open(MPI_Comm comm, const char *library, char *why, size_t whylen) {
  int size;
  thr_nccl *n = calloc(1, sizeof *n);
  MPI_Comm_size(comm, &size);
  if (n) MPI_Comm_rank(comm, &n->rank);
  else snprintf(why, whylen, "out of memory");
  if (!all_ok(comm, n && load(n, library, why, whylen) == 0, why, whylen)) goto fail;
  nccl_id id;
  memset(&id, 0, sizeof id);
  int rc = n->rank == 0 ? n->get_unique_id(&id) : NCCL_SUCCESS;
  if (rc != NCCL_SUCCESS) snprintf(why, whylen, "ncclGetUniqueId: %s", n->error_string(rc));
  if (!all_ok(comm, rc == NCCL_SUCCESS, why, whylen)) goto fail;
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm);
  rc = n->comm_init_rank(&n->comm, size, id, n->rank);
  if (rc != NCCL_SUCCESS) {
    snprintf(why, whylen, "ncclCommInitRank: %s", n->error_string(rc));
    n->comm = NULL;
  }
  if (!all_ok(comm, rc == NCCL_SUCCESS, why, whylen)) goto fail;
  return n;
fail:
  thr_nccl_close(n);
  return NULL;
}

void thr_nccl_close(thr_nccl *n) {
  if (!n) return;
  if (n->comm) n->comm_destroy(n->comm);
  if (n->lib) dlclose(n->lib);
  free(n);
}

const char *thr_nccl_name(const thr_nccl *n) { return n->name; }

void thr_nccl_begin(thr_nccl *n) {
  n->error = 0;
  n->result = n->group_start();
  if (n->result != NCCL_SUCCESS) n->error = 1;
}

static void check(thr_nccl *n, int rc) {
  if (rc != NCCL_SUCCESS && !n->error) {
    n->error = 1;
    n->result = rc;
  }
}

void thr_nccl_post(thr_nccl *n, const thr_comm_plan *p, const void *send, void *recv, size_t elem, void *stream) {
  for (int j = 0; j < p->n_peers; ++j) {
    if (p->recv_count[j])
      check(n, n->recv((char *)recv + (size_t)p->recv_offset[j] * elem, (size_t)p->recv_count[j] * elem, NCCL_INT8,
                       p->peer[j], n->comm, stream));
    if (p->send_count[j])
      check(n, n->send((const char *)send + (size_t)p->send_offset[j] * elem, (size_t)p->send_count[j] * elem,
                       NCCL_INT8, p->peer[j], n->comm, stream));
  }
}

int thr_nccl_end(thr_nccl *n, char *why, size_t whylen) {
  check(n, n->group_end());
  if (!n->error) return 0;
  snprintf(why, whylen, "NCCL halo messages failed: %s", n->error_string(n->result));
  return -1;
}
