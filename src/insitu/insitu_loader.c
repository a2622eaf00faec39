/* insitu.h's implementation side: the Catalyst module, loaded with dlopen
 * when a run asks for Catalyst (docs/decisions/0006-catalyst-module.md).
 * RTLD_GLOBAL: the module brings libpython, whose symbols the Python
 * extension modules that ParaView imports expect to find globally. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "insitu_module.h"

struct thr_insitu {
  void *handle;
  const thr_insitu_module *m;
  void *impl;
};

int thr_insitu_available(void) {
#ifdef THRONG_HAVE_CATALYST
  return 1;
#else
  const char *env = getenv("THRONG_CATALYST_MODULE"); /* a module built elsewhere */
  return env && *env;
#endif
}

const char *thr_insitu_module_path(char *buf, size_t len) {
  const char *env = getenv("THRONG_CATALYST_MODULE");
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return buf;
  }
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  snprintf(buf, len, "%s/../lib/throng/libthrong_catalyst.so", slash ? exe : ".");
  return buf;
}

/* Every rank's verdict: 0 when all succeeded. */
static int agree(MPI_Comm comm, int rc) {
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
  return rc;
}

static int load(thr_insitu *c, char *err, size_t errlen) {
  char path[1200];
  thr_insitu_module_path(path, sizeof path);
  if (!thr_insitu_available()) {
    snprintf(err, errlen,
             "this throng was built without ParaView Catalyst: install paraview-dev (scripts/setup.sh "
             "does) and rebuild with THRONG_CATALYST=AUTO or ON (docs/insitu.md)");
    return -1;
  }
  c->handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!c->handle) {
    snprintf(err, errlen, "cannot load the Catalyst module %.1100s: %s (set THRONG_CATALYST_MODULE to it)", path,
             dlerror());
    return -1;
  }
  thr_insitu_entry_fn entry;
  *(void **)&entry = dlsym(c->handle, THR_INSITU_ENTRY); /* POSIX's way to a function pointer */
  c->m = entry ? entry() : NULL;
  if (!c->m || c->m->abi != THR_INSITU_ABI || c->m->agents_size != sizeof(thr_insitu_agents) ||
      c->m->geometry_size != sizeof(thr_insitu_geometry)) {
    snprintf(err, errlen, "the Catalyst module %.1100s was built from another version of throng; rebuild it", path);
    return -1;
  }
  return 0;
}

int thr_insitu_open(thr_insitu **out, MPI_Comm comm, const char *const *scripts, int n_scripts, const char *workdir,
                    const thr_insitu_geometry *geometry, char *err, size_t errlen) {
  *out = NULL;
  thr_insitu *c = calloc(1, sizeof *c);
  int rc = c ? load(c, err, errlen) : (snprintf(err, errlen, "out of memory"), -1);
  if (agree(comm, rc)) {
    if (rc == 0) snprintf(err, errlen, "another rank could not load the Catalyst module");
    thr_insitu_close(c);
    return -1;
  }
  /* the module agrees over comm itself */
  if (c->m->open(&c->impl, comm, scripts, n_scripts, workdir, geometry, err, errlen)) {
    thr_insitu_close(c);
    return -1;
  }
  *out = c;
  return 0;
}

int thr_insitu_execute(thr_insitu *c, const thr_insitu_agents *agents, char *err, size_t errlen) {
  return c->m->execute(c->impl, agents, err, errlen);
}

const char *thr_insitu_description(const thr_insitu *c) { return c && c->m ? c->m->description() : ""; }

void thr_insitu_close(thr_insitu *c) {
  if (!c) return;
  if (c->impl) c->m->close(c->impl);
  /* the module stays loaded: Python and VTK do not unload cleanly */
  free(c);
}
