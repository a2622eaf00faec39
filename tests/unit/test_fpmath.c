/* Unit tests of kernels/fpmath.h (thr_expf against libm's double exp) and
 * kernels/rng.h (counter-based random numbers). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "kernels/fpmath.h"
#include "kernels/rng.h"

/* ---- thr_expf ------------------------------------------------------------ */

/* Largest relative error of thr_expf against exp((double)x) over
 * x = lo, lo + step, ..., hi (x computed in double, rounded to float). */
static double expf_max_rel_err(double lo, double hi, double step) {
  double worst = 0.0;
  long n = (long)((hi - lo) / step + 0.5);
  for (long i = 0; i <= n; ++i) {
    float x = (float)(lo + (double)i * step);
    double ref = exp((double)x);
    double err = fabs((double)thr_expf(x) - ref) / ref;
    if (err > worst) worst = err;
  }
  return worst;
}

/* The range the model uses: exp(-tau_hat^2 / tau0) in [-tau0, 0] (tau0 = 20
 * in the paper). 400001 points, spacing 5e-5. Bound: 2.5e-7 relative
 * (about 4 half-ulps of float; measured ~1.0e-7). */
THR_TEST(expf_model_range) {
  double worst = expf_max_rel_err(-20.0, 0.0, 5e-5);
  CHECK(worst <= 2.5e-7);
  /* a few points by hand: e^-1 = 0.36787944, e^-0.5 = 0.60653066,
   * e^-10 = 4.5399930e-5, e^-20 = 2.0611536e-9 */
  CHECK_NEAR(thr_expf(-1.0f), 0.36787944117144233, 2.5e-7 * 0.36787944);
  CHECK_NEAR(thr_expf(-0.5f), 0.6065306597126334, 2.5e-7 * 0.60653066);
  CHECK_NEAR(thr_expf(-10.0f), 4.5399929762484854e-05, 2.5e-7 * 4.54e-5);
  CHECK_NEAR(thr_expf(-20.0f), 2.061153622438558e-09, 2.5e-7 * 2.06e-9);
  /* the worked long-range example of test_physics: exp(-0.1125) */
  CHECK_NEAR(thr_expf(-0.1125f), 0.8935973471085157, 2.5e-7);
}

/* The rest of the finite range and positive arguments. */
THR_TEST(expf_full_range) {
  CHECK(expf_max_rel_err(-87.0, -20.0, 2e-4) <= 2.5e-7);
  CHECK(expf_max_rel_err(0.0, 88.0, 2e-4) <= 2.5e-7);
  /* e^1 = 2.7182818, e^2 = 7.3890561, e^10 = 22026.466, e^50 = 5.1847055e21 */
  CHECK_NEAR(thr_expf(1.0f) / 2.718281828459045, 1.0, 2.5e-7);
  CHECK_NEAR(thr_expf(2.0f) / 7.38905609893065, 1.0, 2.5e-7);
  CHECK_NEAR(thr_expf(10.0f) / 22026.465794806718, 1.0, 2.5e-7);
  CHECK_NEAR(thr_expf(50.0f) / 5.184705528587072e+21, 1.0, 2.5e-7);
  CHECK_NEAR(thr_expf(0.25f) / 1.2840254166877414, 1.0, 2.5e-7);
}

/* Exactly 1 at 0 (k = 0, r = 0, p = 1), 0 below -87, +inf on overflow. */
THR_TEST(expf_special) {
  CHECK(thr_expf(0.0f) == 1.0f);
  CHECK(thr_expf(-0.0f) == 1.0f);
  CHECK(thr_expf(-87.001f) == 0.0f);
  CHECK(thr_expf(-100.0f) == 0.0f);
  CHECK(thr_expf(-1e30f) == 0.0f);
  CHECK(thr_expf(-INFINITY) == 0.0f);
  CHECK(thr_expf(89.0f) == INFINITY); /* e^89 = 4.49e38 > FLT_MAX */
  /* e^88.5 = 2.73e38 is representable; the cut at 88 gives +inf there, which
   * is accepted (outside the model's range) */
  CHECK(thr_expf(88.5f) >= 2.7e38f);
  CHECK(thr_expf(INFINITY) == INFINITY);
  /* just above the cut: exp(-87) = 1.6458114e-38, still a normal float */
  CHECK_NEAR(thr_expf(-87.0f) / 1.6458114310822737e-38, 1.0, 2.5e-7);
  /* below 1 for negative, above 1 for positive arguments near 0 */
  CHECK(thr_expf(-1e-6f) < 1.0f);
  CHECK(thr_expf(1e-6f) > 1.0f);
}

/* ---- rng ------------------------------------------------------------------ */

/* Same inputs -> same bits; reference values worked out in Python with the
 * SplitMix64 finaliser (mix64(0) = 0xE220A8397B1DCDAF is SplitMix64's
 * well-known first output for state 0):
 *   u64(0, 0, 0, 0)  = 0x455B13A69E120451
 *   u64(1, 2, 3, 4)  = 0x5F8EB7DD0AB34656
 *   u64(12345, 987654321, 100, 7) = 0x2BD9CA54CA5C36CC
 *   uniform(1, 2, 3, 4) = (0x5F8EB7DD0AB34656 >> 40) / 2^24
 *                       = 6262455 / 16777216 = 0.37327141 */
THR_TEST(rng_deterministic) {
  CHECK(thr_mix64(0) == 0xE220A8397B1DCDAFull);
  CHECK(thr_mix64(1) == 0x910A2DEC89025CC1ull);
  CHECK(thr_rng_u64(0, 0, 0, 0) == 0x455B13A69E120451ull);
  CHECK(thr_rng_u64(1, 2, 3, 4) == 0x5F8EB7DD0AB34656ull);
  CHECK(thr_rng_u64(12345, 987654321, 100, 7) == 0x2BD9CA54CA5C36CCull);
  CHECK(thr_rng_u64(1, 2, 3, 4) == thr_rng_u64(1, 2, 3, 4));
  CHECK(thr_rng_uniform(1, 2, 3, 4) == 6262455.0f / 16777216.0f);
  CHECK(thr_rng_uniform(7, 8, 9, 1) == thr_rng_uniform(7, 8, 9, 1));
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Changing any one of seed, id, step, stream changes the draw; 4096 draws
 * along each axis are pairwise distinct. */
THR_TEST(rng_inputs_differ) {
  const uint64_t base = thr_rng_u64(42, 1000, 50, 3);
  CHECK(thr_rng_u64(43, 1000, 50, 3) != base);
  CHECK(thr_rng_u64(42, 1001, 50, 3) != base);
  CHECK(thr_rng_u64(42, 1000, 51, 3) != base);
  CHECK(thr_rng_u64(42, 1000, 50, 4) != base);
  /* swapping the roles of id and step, or of step and stream, differs */
  CHECK(thr_rng_u64(42, 50, 1000, 3) != base);
  CHECK(thr_rng_u64(42, 1000, 3, 50) != base);
  enum { N = 4096 };
  static uint64_t v[4][N];
  for (int i = 0; i < N; ++i) {
    v[0][i] = thr_rng_u64(42, (uint64_t)i, 50, 3);    /* ids */
    v[1][i] = thr_rng_u64(42, 1000, (uint64_t)i, 3);  /* steps */
    v[2][i] = thr_rng_u64(42, 1000, 50, (uint32_t)i); /* streams */
    v[3][i] = thr_rng_u64((uint64_t)i, 1000, 50, 3);  /* seeds */
  }
  for (int a = 0; a < 4; ++a) {
    qsort(v[a], N, sizeof v[a][0], cmp_u64);
    int dup = 0;
    for (int i = 1; i < N; ++i) dup += v[a][i] == v[a][i - 1];
    CHECK(dup == 0);
  }
  /* adjacent ids differ in about half of the 64 bits (avalanche): the mean
   * popcount of u(id) ^ u(id + 1) over 4096 ids is within 32 +- 1 */
  double bits = 0.0;
  for (int i = 0; i < N; ++i) {
    uint64_t x = thr_rng_u64(7, (uint64_t)i, 0, 0) ^ thr_rng_u64(7, (uint64_t)i + 1, 0, 0);
    int c = 0;
    for (; x; x &= x - 1) ++c;
    bits += c;
  }
  CHECK_NEAR(bits / N, 32.0, 1.0);
}

/* 100000 draws (ids 0..99999): all in [0, 1), mean within 0.01 of 0.5,
 * variance within 0.005 of 1/12, each tenth of [0, 1) holds 10000 +- 500
 * (5 standard deviations: sqrt(100000 * 0.1 * 0.9) = 95). */
THR_TEST(rng_uniform) {
  enum { N = 100000 };
  int bins[10] = {0};
  double sum = 0.0, sum2 = 0.0;
  int out = 0;
  for (int i = 0; i < N; ++i) {
    float u = thr_rng_uniform(2024, (uint64_t)i, 17, 1);
    if (!(u >= 0.0f && u < 1.0f)) {
      ++out;
      continue;
    }
    sum += u;
    sum2 += (double)u * u;
    bins[(int)(u * 10.0f)]++;
  }
  CHECK(out == 0);
  double mean = sum / N, var = sum2 / N - mean * mean;
  CHECK_NEAR(mean, 0.5, 0.01);
  CHECK_NEAR(var, 1.0 / 12.0, 0.005);
  for (int b = 0; b < 10; ++b) CHECK(abs(bins[b] - N / 10) <= 500);
  /* the largest possible draw, (2^24 - 1)/2^24 = 0.99999994, is below 1 */
  CHECK((float)(0xFFFFFFull) * (1.0f / 16777216.0f) < 1.0f);
  /* over steps too (one agent's draws over time) */
  sum = 0.0;
  for (int i = 0; i < N; ++i) sum += thr_rng_uniform(2024, 5, (uint64_t)i, 1);
  CHECK_NEAR(sum / N, 0.5, 0.01);
}
