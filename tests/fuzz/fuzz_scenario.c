/* libFuzzer target: the bytes are a scenario file (with "#set KEY=VALUE"
 * lines as overrides, fuzz_input.h), loaded and validated as `throng check`
 * does. Finds crashes, leaks, undefined behaviour, and messages that are
 * unlocated, multi-line or echo control characters. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  thr_scenario sc;
  thr_fuzz_load(data, size, &sc);
  thr_scenario_free(&sc);
  return 0;
}
