/* Between insitu_loader.c and the Catalyst module it loads: one C entry
 * point, thr_insitu_module_v1, handing out this table. `abi` and the struct
 * sizes guard against a module built from other sources. */
#ifndef THRONG_INSITU_MODULE_H
#define THRONG_INSITU_MODULE_H

#include "insitu.h"

#define THR_INSITU_ABI 1
#define THR_INSITU_ENTRY "thr_insitu_module_v1"

typedef struct thr_insitu_module {
  int abi;
  size_t agents_size, geometry_size; /* sizeof the channels' structs */
  const char *(*description)(void);  /* "ParaView 5.11.0 Catalyst (legacy API)" */
  int (*open)(void **impl, MPI_Comm comm, const char *const *scripts, int n_scripts, const char *workdir,
              const thr_insitu_geometry *geometry, char *err, size_t errlen);
  int (*execute)(void *impl, const thr_insitu_agents *agents, char *err, size_t errlen);
  void (*close)(void *impl);
} thr_insitu_module;

typedef const thr_insitu_module *(*thr_insitu_entry_fn)(void);

#endif
