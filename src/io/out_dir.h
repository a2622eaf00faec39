/* The output directory of a run, claimed before the run's expensive set-up
 * (reading, placing, routing: minutes for a large crowd) and held until it
 * ends, so that two runs never write into one directory.
 *
 * The claim is a lock file, DIR/.throng.lock, created with O_EXCL (atomic on
 * local filesystems, NFS and Lustre alike) and holding "host pid time" of
 * its run. A lock left by a run that was killed (SIGKILL, a node lost) is
 * taken over when its process is gone on this host; one of another host is
 * reported with the file to delete. Only rank 0 calls these.
 *
 * --overwrite replaces an earlier run's outputs, and only those: the
 * entries a run writes (thr_out_dir_entries), checked before anything is
 * removed; a directory holding anything else is refused whole. */
#ifndef THRONG_OUT_DIR_H
#define THRONG_OUT_DIR_H

#include <stddef.h>

#define THR_OUT_DIR_LOCK ".throng.lock"

/* The longest path an output may have (Linux's PATH_MAX): an --out of
 * 1,000 characters is legal. */
enum { THR_PATH_MAX = 4096 };

typedef struct thr_out_dir {
  char path[THR_PATH_MAX];
  int fd;       /* the lock file, open while held; -1 when not */
  int created;  /* components of path this claim created (removed again if the run writes nothing) */
  int earlier;  /* an earlier run's outputs are there, to be cleared (--overwrite) */
} thr_out_dir;

/* Check dir (new, empty, or with `overwrite` an earlier run's output
 * directory holding only a run's outputs), create it and take its lock.
 * Returns 0, or -1 with a message naming the path and what is wrong (bad
 * input, exit 2); nothing is left behind on failure. */
int thr_out_dir_claim(thr_out_dir *d, const char *dir, int overwrite, char *err, size_t errlen);

/* Remove the earlier run's outputs (after set-up succeeded, so that a run
 * refused for bad input keeps them). 0, or -1 with "PATH: reason". */
int thr_out_dir_clear_earlier(thr_out_dir *d, char *err, size_t errlen);

/* Give the lock back; directories this claim created are removed again
 * when nothing was written into them. Safe to call twice. */
void thr_out_dir_release(thr_out_dir *d);

/* Is `name` (a top-level entry of an output directory) one that a run or
 * `throng report` writes? */
int thr_out_dir_entry_is_output(const char *name);

#endif
