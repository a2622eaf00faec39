#!/usr/bin/env bash
# Build throng (scripts/setup.sh) and run its CPU test suites:
#   ctest --test-dir build -L 'unit|scenario|mpi|io|catalyst|slurm|regression|install|robustness|evacuation|floors|validation|formations|paper|3d|orca|powerlaw' --output-on-failure -j2 [EXTRA ARGS]
# Extra arguments go to ctest, e.g.  scripts/test.sh -R contact  or  scripts/test.sh -V
# The same environment knobs as scripts/setup.sh apply (THRONG_BUILD_DIR,
# THRONG_CMAKE_ARGS, THRONG_SKIP_INSTALL); THRONG_TEST_JOBS sets ctest -j (default 2).
# Exit status: ctest's (or setup.sh's, when the build fails).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${THRONG_BUILD_DIR:-build}
TEST_JOBS=${THRONG_TEST_JOBS:-2}

THRONG_TEST_PACKAGES=1 bash "$ROOT/scripts/setup.sh"

# Open MPI refuses to start as root unless told; the MPI tests also start more
# ranks than a small machine (or CI) has cores.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  echo "[test] running as root: exported OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
fi
export OMPI_MCA_rmaps_base_oversubscribe=1                   # Open MPI 4.x
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe  # Open MPI 5.x

# Use the ctest that belongs to the CMake that configured the build.
CTEST=$(sed -n 's/^CMAKE_CTEST_COMMAND:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
[[ -n $CTEST && -x $CTEST ]] || CTEST=ctest

echo "[test] running: $CTEST --test-dir $BUILD_DIR -L 'unit|scenario|mpi|io|catalyst|slurm|regression|install|robustness|evacuation|floors|validation|formations|paper|3d|orca|powerlaw' --output-on-failure -j$TEST_JOBS $*"
exec "$CTEST" --test-dir "$BUILD_DIR" -L 'unit|scenario|mpi|io|catalyst|slurm|regression|install|robustness|evacuation|floors|validation|formations|paper|3d|orca|powerlaw' --output-on-failure -j"$TEST_JOBS" "$@"
