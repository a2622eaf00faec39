#define _POSIX_C_SOURCE 200809L
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

static void size_text(double bytes, char *buf, size_t len) {
  if (bytes >= 1 << 30)
    snprintf(buf, len, "%.3g GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20)
    snprintf(buf, len, "%.3g MiB", bytes / (1 << 20));
  else
    snprintf(buf, len, "%.0f bytes", bytes);
}

static int check_stat(const struct stat *st, long long max_bytes, char *why, size_t whylen) {
  if (!S_ISREG(st->st_mode)) {
    const char *kind = kind_of(st->st_mode);
    snprintf(why, whylen, "is %s, not a regular file", kind);
    return -1;
  }
  if (max_bytes >= 0 && (long long)st->st_size > max_bytes) {
    char have[32], most[32];
    size_text((double)st->st_size, have, sizeof have);
    size_text((double)max_bytes, most, sizeof most);
    snprintf(why, whylen, "is %s, more than the %s this kind of input may have", have, most);
    return -1;
  }
  return 0;
}

int thr_input_check(const char *path, long long max_bytes, char *why, size_t whylen) {
  struct stat st;
  if (stat(path, &st)) {
    snprintf(why, whylen, "%s", strerror(errno));
    return -1;
  }
  return check_stat(&st, max_bytes, why, whylen);
}

FILE *thr_input_open(const char *path, long long max_bytes, char *why, size_t whylen) {
  if (thr_input_check(path, max_bytes, why, whylen)) return NULL;
  /* O_NONBLOCK: a FIFO put in the file's place since the check does not
   * block the open; fstat then refuses it */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    snprintf(why, whylen, "%s", strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  if (check_stat(&st, max_bytes, why, whylen)) {
    close(fd);
    return NULL;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    snprintf(why, whylen, "%s", strerror(errno));
    close(fd);
  }
  return f;
}

char *thr_input_read(const char *path, long long max_bytes, size_t *len, char *why, size_t whylen) {
  FILE *f = thr_input_open(path, max_bytes, why, whylen);
  if (!f) return NULL;
  why[0] = '\0';
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - 1 - n, f);
    if (ferror(f)) {
      snprintf(why, whylen, "%s", strerror(errno ? errno : EIO));
      free(buf);
      buf = NULL;
      break;
    }
    if (feof(f)) break;
    /* a file that grows while it is read stops at the cap too */
    if (max_bytes >= 0 && (long long)n > max_bytes) {
      snprintf(why, whylen, "grew past %lld bytes while it was read", max_bytes);
      free(buf);
      buf = NULL;
      break;
    }
    if (n + 1 == cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  if (!buf && !why[0]) snprintf(why, whylen, "%s", strerror(ENOMEM));
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  *len = n;
  return buf;
}

long thr_input_line(thr_line_reader *r, char *out, size_t max) {
  size_t len = 0;
  int any = 0;
  for (;;) {
    if (r->at == r->n) {
      r->at = 0;
      r->n = fread(r->buf, 1, sizeof r->buf, r->f);
      if (!r->n) {
        if (ferror(r->f)) return THR_LINE_ERROR;
        break; /* the end: a last line without '\n' */
      }
    }
    any = 1;
    char ch = r->buf[r->at++];
    if (ch == '\n') break;
    if (!ch) return THR_LINE_NUL; /* binary data, not text */
    if (len == max) return THR_LINE_TOO_LONG;
    out[len++] = ch;
  }
  out[len] = '\0';
  return any ? (long)len : THR_LINE_END;
}
