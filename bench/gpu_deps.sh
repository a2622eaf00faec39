# Sourced by the bench/gpu_*.sh scripts on the GPU machine: allow mpirun as
# root, and unpack the Debian packages carried in .deps/ (libyaml; see
# ../shared/reference/gpu-machine.md) into /opt/deps for CMake and the loader.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
  export CMAKE_PREFIX_PATH=/opt/deps/usr LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

# gpu_build SRC BUILD_DIR JOBS [CMAKE ARGS...]: configure and build SRC's
# CUDA benchmark build (HDF5 off) into SRC/BUILD_DIR with JOBS parallel jobs,
# unless it is there already; logs into $out (the sourcing script's).
gpu_build() {
  local src=$1 dir=$2 jobs=$3; shift 3
  [ -x "$src/$dir/bin/throng-bench" ] && return 0
  cmake -S "$src" -B "$src/$dir" -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF "$@" >"$out/cfg-${src//\//_}-$dir.log" 2>&1 &&
    cmake --build "$src/$dir" -j "$jobs" >"$out/build-${src//\//_}-$dir.log" 2>&1
}
