#define _XOPEN_SOURCE 700
#include "out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The top-level entries a run writes, or `throng report`, a Catalyst script
 * (the shipped scripts' or ParaView's default extracts directory) or
 * scripts/paraview_frames.py; directories among them are a run's own. Each
 * is also accepted with ".tmp" (a write that a killed run left). */
static const char *const g_outputs[] = {
    "run.json",       "metrics.csv",   "formations.csv", "balance.csv",     "geometry.vtp", "geometry.wkt",
    "geometry.json",  "summary.json",  "exits.csv",      "evacuated.csv",   "areas.csv",    "lines.csv",
    "trajectory",     "trajectory.h5", "trajectory.xdmf", "checkpoints",    "maps",         "report",
    "catalyst",       "datasets",      "paraview",      "floors.csv",      THR_OUT_DIR_LOCK,
};

/* A building's walkable area per floor: geometry-floorK.wkt (io/geometry_out.c). */
static int is_floor_wkt(const char *name, size_t n) {
  static const char head[] = "geometry-floor", tail[] = ".wkt";
  size_t h = sizeof head - 1, t = sizeof tail - 1;
  if (n <= h + t || strncmp(name, head, h) || strncmp(name + n - t, tail, t)) return 0;
  for (size_t k = h; k < n - t; ++k)
    if (name[k] < '0' || name[k] > '9') return 0;
  return 1;
}

int thr_out_dir_entry_is_output(const char *name) {
  size_t n = strlen(name);
  if (n > 4 && !strcmp(name + n - 4, ".tmp")) n -= 4;
  for (size_t i = 0; i < sizeof g_outputs / sizeof g_outputs[0]; ++i)
    if (strlen(g_outputs[i]) == n && !strncmp(g_outputs[i], name, n)) return 1;
  return is_floor_wkt(name, n);
}

static int fail(char *err, size_t errlen, const char *path, const char *what) {
  snprintf(err, errlen, "%.1100s: %s: %s", path, what, strerror(errno ? errno : EIO));
  return -1;
}

/* ---- creating and removing the directory ------------------------------------- */

/* mkdir -p, counting the components it created. */
static int make_dirs(char *buf, int *created) {
  *created = 0;
  for (char *q = buf + 1;; ++q) {
    if (*q != '/' && *q) continue;
    char c = *q;
    *q = '\0';
    if (!mkdir(buf, 0775))
      ++*created;
    else if (errno != EEXIST)
      return -1;
    *q = c;
    if (!c) break;
  }
  struct stat st;
  if (stat(buf, &st)) return -1;
  if (!S_ISDIR(st.st_mode)) return errno = ENOTDIR, -1;
  return 0;
}

/* rmdir the `created` deepest existing components of path while they are
 * empty (those past a failed mkdir do not exist). */
static void remove_created(const char *path, int created) {
  char buf[sizeof((thr_out_dir *)0)->path];
  snprintf(buf, sizeof buf, "%s", path);
  size_t n = strlen(buf);
  while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0'; /* "out/" */
  while (created > 0) {
    if (!rmdir(buf))
      --created;
    else if (errno != ENOENT && errno != ENAMETOOLONG) /* not empty: the run wrote there */
      return;
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return;
    *slash = '\0';
  }
}

/* ---- the lock ------------------------------------------------------------------ */

static int lock_path(const thr_out_dir *d, char *buf, size_t size) {
  return snprintf(buf, size, "%s/%s", d->path, THR_OUT_DIR_LOCK) >= (int)size ? (errno = ENAMETOOLONG, -1) : 0;
}

/* A lock whose process is gone from this host: 1; alive, elsewhere or
 * unreadable: 0 (with who holds it in `holder`). */
static int lock_is_stale(const char *path, char *holder, size_t size) {
  char host[256] = "", me[256] = "";
  long pid = 0, since = 0;
  FILE *f = fopen(path, "r");
  int fields = f ? fscanf(f, "%255s %ld %ld", host, &pid, &since) : 0;
  if (f) fclose(f);
  if (fields != 3 || pid <= 0) {
    snprintf(holder, size, "a run that is starting, or whose lock file is damaged");
    return 0;
  }
  char when[64] = "?";
  time_t t = (time_t)since;
  struct tm tm;
  if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(holder, size, "process %ld on host %s, since %s", pid, host, when);
  gethostname(me, sizeof me - 1);
  return !strcmp(host, me) && kill((pid_t)pid, 0) && errno == ESRCH;
}

static int take_lock(thr_out_dir *d, char *err, size_t errlen) {
  char path[sizeof d->path + 32], holder[400];
  if (lock_path(d, path, sizeof path)) return fail(err, errlen, d->path, "output directory");
  for (int attempt = 0; attempt < 2; ++attempt) {
    d->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (d->fd >= 0) break;
    if (errno != EEXIST) return fail(err, errlen, path, "cannot create the output directory's lock");
    if (attempt || !lock_is_stale(path, holder, sizeof holder)) {
      if (attempt) snprintf(holder, sizeof holder, "another run that started just now");
      snprintf(err, errlen,
               "output directory %.1100s is in use by another run (%s); choose another with --out, or, if no run "
               "is using it, delete %.1100s",
               d->path, holder, path);
      return -1;
    }
    fprintf(stderr, "throng: %s: taking over the lock of %s, which no longer runs\n", path, holder);
    unlink(path);
  }
  char host[256] = "?", line[320];
  gethostname(host, sizeof host - 1);
  host[strcspn(host, " \t\n")] = '\0';
  int n = snprintf(line, sizeof line, "%s %ld %lld\n", host, (long)getpid(), (long long)time(NULL));
  if (n < 0 || write(d->fd, line, (size_t)n) != n) {
    int saved = errno;
    close(d->fd), d->fd = -1;
    unlink(path);
    errno = saved;
    return fail(err, errlen, path, "cannot write the output directory's lock");
  }
  return 0;
}

/* ---- what is in the directory ------------------------------------------------- */

/* Count the entries of dir other than the lock; the first `show` that no
 * run writes go into `foreign` (", "-separated); *n_foreign counts them. */
static int survey(const char *dir, long *n_entries, long *n_foreign, char *foreign, size_t size) {
  DIR *dp = opendir(dir);
  if (!dp) return -1;
  *n_entries = *n_foreign = 0;
  foreign[0] = '\0';
  for (struct dirent *e; (e = readdir(dp));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, THR_OUT_DIR_LOCK)) continue;
    ++*n_entries;
    if (thr_out_dir_entry_is_output(e->d_name)) continue;
    if (++*n_foreign <= 3) {
      size_t used = strlen(foreign);
      snprintf(foreign + used, size - used, "%s%.200s", used ? ", " : "", e->d_name);
    }
  }
  closedir(dp);
  return 0;
}

static int check_contents(thr_out_dir *d, int overwrite, char *err, size_t errlen) {
  long entries, n_foreign;
  char foreign[700];
  errno = 0;
  if (survey(d->path, &entries, &n_foreign, foreign, sizeof foreign))
    return fail(err, errlen, d->path, "cannot read the output directory");
  if (!entries) return 0;
  char runjson[sizeof d->path + 16];
  snprintf(runjson, sizeof runjson, "%s/run.json", d->path);
  int earlier = !access(runjson, F_OK);
  if (!overwrite) {
    snprintf(err, errlen,
             "output directory %.1100s is not empty%s; pass --overwrite to replace it, or choose another with --out",
             d->path, earlier ? " (an earlier run's outputs)" : "");
    return -1;
  }
  if (!earlier) {
    snprintf(err, errlen,
             "output directory %.1100s is not empty and holds no run.json from an earlier run; --overwrite clears "
             "only throng's own output directories: choose another with --out",
             d->path);
    return -1;
  }
  if (n_foreign) {
    snprintf(err, errlen,
             "output directory %.1100s holds %ld entr%s that no throng run writes (%s%s); --overwrite removes only "
             "a run's outputs: move %s away, or choose another directory with --out",
             d->path, n_foreign, n_foreign == 1 ? "y" : "ies", foreign, n_foreign > 3 ? ", ..." : "",
             n_foreign == 1 ? "it" : "them");
    return -1;
  }
  d->earlier = 1;
  return 0;
}

int thr_out_dir_claim(thr_out_dir *d, const char *dir, int overwrite, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  d->fd = -1;
  if (!*dir) {
    snprintf(err, errlen, "--out: the output directory's path is empty; name a directory (or pass --no-output)");
    return -1;
  }
  /* room for the longest path a run writes below it */
  if (strlen(dir) + 64 >= sizeof d->path) {
    errno = ENAMETOOLONG;
    return fail(err, errlen, dir, "output directory");
  }
  snprintf(d->path, sizeof d->path, "%s", dir);
  struct stat st;
  if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "--out %.1100s: exists and is not a directory", dir);
    return -1;
  }
  errno = 0;
  if (make_dirs(d->path, &d->created)) {
    int saved = errno;
    remove_created(d->path, d->created);
    errno = saved;
    return fail(err, errlen, dir, "cannot create the output directory");
  }
  if (take_lock(d, err, errlen) || check_contents(d, overwrite, err, errlen)) {
    thr_out_dir_release(d);
    return -1;
  }
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int thr_out_dir_clear_earlier(thr_out_dir *d, char *err, size_t errlen) {
  if (!d->earlier) return 0;
  DIR *dp = opendir(d->path);
  errno = 0;
  if (!dp) return fail(err, errlen, d->path, "cannot clear the earlier run's outputs");
  int rc = 0;
  for (struct dirent *e; !rc && (e = readdir(dp));) {
    if (!thr_out_dir_entry_is_output(e->d_name) || !strcmp(e->d_name, THR_OUT_DIR_LOCK)) continue;
    char path[sizeof d->path + 260];
    snprintf(path, sizeof path, "%s/%s", d->path, e->d_name);
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS)) rc = fail(err, errlen, path, "cannot remove");
  }
  closedir(dp);
  d->earlier = rc != 0;
  return rc;
}

void thr_out_dir_release(thr_out_dir *d) {
  if (d->fd < 0) return;
  char path[sizeof d->path + 32];
  close(d->fd);
  d->fd = -1;
  if (!lock_path(d, path, sizeof path)) unlink(path);
  remove_created(d->path, d->created);
  d->created = 0;
}
