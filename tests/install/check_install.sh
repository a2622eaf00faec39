#!/usr/bin/env bash
# Install a build into a fresh prefix, then build and run a small project
# against it with find_package(throng): the exported package works.
# Usage: check_install.sh CMAKE BUILD_DIR SOURCE_DIR
set -euo pipefail
cmake=$1 build=$2 src=$3
tmp=$(mktemp -d /tmp/throng_install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
for f in bin/throng lib/cmake/throng/throngConfig.cmake include/throng/core/sim.h share/throng/configs/paper/bottleneck-480.yaml; do
  [[ -e $tmp/prefix/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
"$cmake" -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; echo "FAIL: find_package(throng) did not configure"; exit 1; }
"$cmake" --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: consumer did not build"; exit 1; }
"$tmp/consumer/consumer" "$tmp/prefix/share/throng/configs/paper/bottleneck-480.yaml"
"$tmp/prefix/bin/throng" --version
echo "ok: installed into a fresh prefix; find_package(throng) + throng::core built and ran a consumer"
