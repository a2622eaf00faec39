/* One fuzz input, as the fuzz targets (fuzz_scenario, fuzz_placement) and
 * the regression replay (fuzz_replay) all read it: the bytes are a scenario
 * file, and each of its lines "#set KEY=VALUE" (a YAML comment, so the file
 * still parses) is also applied as a --set override, with \xNN escapes
 * decoded so that an override can hold any byte a command line can.
 * Loading must end in a scenario or in one clean, located message; any
 * other outcome aborts, which the fuzzer reports as a crash. */
#ifndef THRONG_FUZZ_INPUT_H
#define THRONG_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/scenario.h"

/* Load the input as `throng check` does (thr_config_load) and check the
 * outcome: a refusal must be one line that starts with FILE:LINE:COL: (or
 * with the --set override at fault), is UTF-8 and holds no control
 * character; a loaded scenario's names must be printable. Returns 0 with *sc
 * filled, -1 when refused (*sc empty); either way *sc is to be freed. */
int thr_fuzz_load(const uint8_t *data, size_t size, thr_scenario *sc);

/* Abort with a message (a finding, for the fuzzer); `text` is shown with
 * its control characters and non-UTF-8 bytes escaped. */
void thr_fuzz_fail(const char *rule, const char *text);

#endif
