# Sourced by the bench/gpu_*.sh scripts on the GPU machine: allow mpirun as
# root, and unpack the Debian packages carried in .deps/ (libyaml; see
# ../shared/reference/gpu-machine.md) into /opt/deps for CMake and the loader.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
  export CMAKE_PREFIX_PATH=/opt/deps/usr LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
