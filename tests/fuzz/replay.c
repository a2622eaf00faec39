/* Replays fuzz inputs (tests/fuzz/regressions/) through the scenario loader
 * exactly as fuzz_scenario does (fuzz_input.h), without libFuzzer or clang:
 * every input must load or be refused with a clean, located message.
 * usage: fuzz_replay FILE...   (a broken rule aborts) */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"

static unsigned char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    unsigned char *grown = realloc(buf, cap *= 2);
    if (!grown) free(buf);
    buf = grown;
  }
  fclose(f);
  *size = n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fuzz_replay FILE...\n");
    return 2;
  }
  for (int k = 1; k < argc; ++k) {
    size_t size = 0;
    unsigned char *data = read_all(argv[k], &size);
    if (!data) {
      perror(argv[k]);
      return 1;
    }
    thr_scenario sc;
    int rc = thr_fuzz_load(data, size, &sc);
    printf("ok: %s (%s)\n", argv[k], rc ? "refused cleanly" : "loaded");
    thr_scenario_free(&sc);
    free(data);
  }
  return 0;
}
