/* A tiny test harness. A test file defines cases with THR_TEST(name); the
 * header supplies main(). CMake registers every case as its own CTest test
 * (tests/CMakeLists.txt reads the THR_TEST lines) and runs
 * `test_file case_name`; without an argument all cases run. */
#ifndef THRONG_TEST_CHECK_H
#define THRONG_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int thr_test_failures;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      thr_test_failures++;                                                \
    }                                                                     \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
  do {                                                                                  \
    double a_ = (double)(a), b_ = (double)(b);                                          \
    if (!(fabs(a_ - b_) <= (double)(tol))) {                                            \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tolerance %g)\n", \
              __FILE__, __LINE__, #a, a_, #b, b_, (double)(tol));                       \
      thr_test_failures++;                                                              \
    }                                                                                   \
  } while (0)

/* Every THR_TEST registers itself before main runs (a constructor), so a
 * case is written once: no list of cases to keep, no limit on their number. */
typedef struct thr_test_case {
  const char *name;
  void (*fn)(void);
  struct thr_test_case *next;
} thr_test_case;

static thr_test_case *thr_test_first;
static thr_test_case **thr_test_last = &thr_test_first;

#define THR_TEST(name)                                                   \
  static void name(void);                                                \
  static thr_test_case thr_case_##name = {#name, name, NULL};            \
  __attribute__((constructor)) static void thr_register_##name(void) {   \
    *thr_test_last = &thr_case_##name;                                   \
    thr_test_last = &thr_case_##name.next;                               \
  }                                                                      \
  static void name(void)

/* `test_x` runs every case, `test_x NAME` one, `test_x --list` names them.
 * A file may define THR_TEST_SETUP (before including this header) as a
 * function int(void) that runs first; a non-zero result is the exit status
 * (77: skipped, e.g. no GPU). */
int main(int argc, char **argv) {
  int ran = 0;
#ifdef THR_TEST_SETUP
  if (!(argc > 1 && !strcmp(argv[1], "--list"))) {
    int rc = THR_TEST_SETUP();
    if (rc) return rc;
  }
#endif
  for (thr_test_case *t = thr_test_first; t; t = t->next) {
    if (argc > 1 && !strcmp(argv[1], "--list")) {
      printf("%s\n", t->name);
      continue;
    }
    if (argc > 1 && strcmp(argv[1], t->name) != 0) continue;
    int before = thr_test_failures;
    t->fn();
    printf("%s: %s\n", t->name, thr_test_failures == before ? "ok" : "FAILED");
    ran++;
  }
  if (argc > 1 && !strcmp(argv[1], "--list")) return 0;
  if (ran == 0) {
    fprintf(stderr, "no test case named '%s'\n", argc > 1 ? argv[1] : "");
    return 1;
  }
  return thr_test_failures ? 1 : 0;
}

#endif
