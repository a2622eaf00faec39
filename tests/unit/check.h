/* A tiny test harness. A test file defines cases with THR_TEST(name) and
 * lists them in THR_TEST_MAIN(name, name, ...). CMake registers every case
 * as its own CTest test (tests/CMakeLists.txt greps for THR_TEST lines), and
 * runs `test_file case_name`; without an argument all cases run. */
#ifndef THRONG_TEST_CHECK_H
#define THRONG_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int thr_test_failures;

#define THR_TEST(name) static void name(void)

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

typedef struct thr_test_case {
  const char *name;
  void (*fn)(void);
} thr_test_case;

static inline int thr_test_run(const thr_test_case *cases, int n, int argc, char **argv) {
  int ran = 0;
  for (int k = 0; k < n; ++k) {
    if (argc > 1 && strcmp(argv[1], cases[k].name) != 0) continue;
    int before = thr_test_failures;
    cases[k].fn();
    printf("%s: %s\n", cases[k].name, thr_test_failures == before ? "ok" : "FAILED");
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "no test case named '%s'\n", argc > 1 ? argv[1] : "");
    return 1;
  }
  return thr_test_failures ? 1 : 0;
}

#define THR_TEST_ENTRY(name) {#name, name},
#define THR_TEST_MAIN(...)                                                   \
  int main(int argc, char **argv) {                                          \
    static const thr_test_case cases_[] = {THR_TEST_FOREACH(__VA_ARGS__)};   \
    return thr_test_run(cases_, (int)(sizeof cases_ / sizeof cases_[0]), argc, argv); \
  }

/* expand THR_TEST_ENTRY over up to 32 names */
#define THR_TF_1(a) THR_TEST_ENTRY(a)
#define THR_TF_2(a, ...) THR_TEST_ENTRY(a) THR_TF_1(__VA_ARGS__)
#define THR_TF_3(a, ...) THR_TEST_ENTRY(a) THR_TF_2(__VA_ARGS__)
#define THR_TF_4(a, ...) THR_TEST_ENTRY(a) THR_TF_3(__VA_ARGS__)
#define THR_TF_5(a, ...) THR_TEST_ENTRY(a) THR_TF_4(__VA_ARGS__)
#define THR_TF_6(a, ...) THR_TEST_ENTRY(a) THR_TF_5(__VA_ARGS__)
#define THR_TF_7(a, ...) THR_TEST_ENTRY(a) THR_TF_6(__VA_ARGS__)
#define THR_TF_8(a, ...) THR_TEST_ENTRY(a) THR_TF_7(__VA_ARGS__)
#define THR_TF_9(a, ...) THR_TEST_ENTRY(a) THR_TF_8(__VA_ARGS__)
#define THR_TF_10(a, ...) THR_TEST_ENTRY(a) THR_TF_9(__VA_ARGS__)
#define THR_TF_11(a, ...) THR_TEST_ENTRY(a) THR_TF_10(__VA_ARGS__)
#define THR_TF_12(a, ...) THR_TEST_ENTRY(a) THR_TF_11(__VA_ARGS__)
#define THR_TF_13(a, ...) THR_TEST_ENTRY(a) THR_TF_12(__VA_ARGS__)
#define THR_TF_14(a, ...) THR_TEST_ENTRY(a) THR_TF_13(__VA_ARGS__)
#define THR_TF_15(a, ...) THR_TEST_ENTRY(a) THR_TF_14(__VA_ARGS__)
#define THR_TF_16(a, ...) THR_TEST_ENTRY(a) THR_TF_15(__VA_ARGS__)
#define THR_TF_17(a, ...) THR_TEST_ENTRY(a) THR_TF_16(__VA_ARGS__)
#define THR_TF_18(a, ...) THR_TEST_ENTRY(a) THR_TF_17(__VA_ARGS__)
#define THR_TF_19(a, ...) THR_TEST_ENTRY(a) THR_TF_18(__VA_ARGS__)
#define THR_TF_20(a, ...) THR_TEST_ENTRY(a) THR_TF_19(__VA_ARGS__)
#define THR_TF_21(a, ...) THR_TEST_ENTRY(a) THR_TF_20(__VA_ARGS__)
#define THR_TF_22(a, ...) THR_TEST_ENTRY(a) THR_TF_21(__VA_ARGS__)
#define THR_TF_23(a, ...) THR_TEST_ENTRY(a) THR_TF_22(__VA_ARGS__)
#define THR_TF_24(a, ...) THR_TEST_ENTRY(a) THR_TF_23(__VA_ARGS__)
#define THR_TF_25(a, ...) THR_TEST_ENTRY(a) THR_TF_24(__VA_ARGS__)
#define THR_TF_26(a, ...) THR_TEST_ENTRY(a) THR_TF_25(__VA_ARGS__)
#define THR_TF_27(a, ...) THR_TEST_ENTRY(a) THR_TF_26(__VA_ARGS__)
#define THR_TF_28(a, ...) THR_TEST_ENTRY(a) THR_TF_27(__VA_ARGS__)
#define THR_TF_29(a, ...) THR_TEST_ENTRY(a) THR_TF_28(__VA_ARGS__)
#define THR_TF_30(a, ...) THR_TEST_ENTRY(a) THR_TF_29(__VA_ARGS__)
#define THR_TF_31(a, ...) THR_TEST_ENTRY(a) THR_TF_30(__VA_ARGS__)
#define THR_TF_32(a, ...) THR_TEST_ENTRY(a) THR_TF_31(__VA_ARGS__)
#define THR_TF_N(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, \
                 _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...)    \
  THR_TF_##N
#define THR_TEST_FOREACH(...)                                                                   \
  THR_TF_N(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, \
           14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)(__VA_ARGS__)

#endif
