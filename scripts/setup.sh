#!/usr/bin/env bash
# Install what throng needs (Debian 12 / Ubuntu 22.04 or newer), then
# configure and build it. Safe to re-run: it installs only what is missing,
# and re-configuring an existing build directory keeps its cached options.
#
# Environment knobs:
#   THRONG_BUILD_DIR=build        build directory, relative to the repository root
#   THRONG_CMAKE_ARGS="..."       extra CMake arguments, e.g. "-DTHRONG_CUDA=OFF"
#   THRONG_SKIP_INSTALL=1         do not install system packages
#   THRONG_EXTRA_PACKAGES="..."   more Debian packages to install, e.g. libhdf5-openmpi-dev
#   THRONG_JOBS=N                 parallel build jobs (default: nproc)
#   THRONG_NO_CATALYST=1          skip ParaView (paraview-dev, about 1.5 GB): no in situ visualisation
#   THRONG_TEST_PACKAGES=1        also what only the tests need: Slurm and munge, Chromium (scripts/test.sh sets it)
#
# Usage: scripts/setup.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BUILD_DIR=${THRONG_BUILD_DIR:-build}
CMAKE_ARGS=${THRONG_CMAKE_ARGS:-}
SKIP_INSTALL=${THRONG_SKIP_INSTALL:-0}
JOBS=${THRONG_JOBS:-$(nproc 2>/dev/null || echo 2)}
MIN_CMAKE=3.25
# A newer CMake from PyPI goes here when the system one is too old (Ubuntu 22.04).
TOOLS_DIR=${THRONG_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/throng/tools}

PACKAGES=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libyaml-dev python3
          python3-matplotlib python3-numpy # matplotlib: `throng report`; numpy: ctest -L validation
          libhdf5-openmpi-dev python3-h5py python3-venv # HDF5 trajectories/checkpoints; h5py, venv (PedPy): ctest -L io
          libgeos-dev) # the outputs' walkable area less its obstacles (io/walkable_out.c)
# ctest -L slurm starts a private Slurm that runs the job scripts (docs/slurm.md);
# only for the tests (scripts/test.sh asks for them): on a machine with
# systemd these packages enable daemons
if [[ ${THRONG_TEST_PACKAGES:-0} == 1 ]]; then
  PACKAGES+=(slurmctld slurmd slurm-client munge)
  # headless Chromium opens the report page (unit.report.browser; skipped
  # without it): Debian's package; Ubuntu has only a snap, left out there
  if [[ $(. /etc/os-release 2>/dev/null && echo "${ID:-}") == debian ]]; then
    PACKAGES+=(chromium)
  fi
fi
# ParaView Catalyst (docs/insitu.md): the module, ctest -L catalyst; about 1.5 GB
if [[ ${THRONG_NO_CATALYST:-0} != 1 ]]; then
  PACKAGES+=(g++ paraview-dev python3-paraview xvfb xauth)
fi
set -f
# shellcheck disable=SC2206  # word splitting is intended
PACKAGES+=(${THRONG_EXTRA_PACKAGES:-})
set +f

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# ---- privileges for apt-get -------------------------------------------------
SUDO=()
need_privileges() {
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    die "packages must be installed but you are not root and sudo is not available.
        Install them as root:  apt-get install -y $*
        then re-run with THRONG_SKIP_INSTALL=1 scripts/setup.sh"
  fi
}

is_installed() {
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}

APT_UPDATED=0
apt_install() {
  need_privileges "$@"
  if [[ $APT_UPDATED -eq 0 ]]; then
    log "running: ${SUDO[*]:+${SUDO[*]} }apt-get update"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
      die "apt-get update failed (network? package sources?). Install these by hand: $*
        then re-run with THRONG_SKIP_INSTALL=1 scripts/setup.sh"
    APT_UPDATED=1
  fi
  log "running: ${SUDO[*]:+${SUDO[*]} }apt-get install -y --no-install-recommends $*"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "$@" ||
    die "apt-get install failed for: $*
        Install them by hand, then re-run with THRONG_SKIP_INSTALL=1 scripts/setup.sh"
}

install_packages() {
  if [[ $SKIP_INSTALL == 1 ]]; then
    log "THRONG_SKIP_INSTALL=1: not installing packages"
    return
  fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    die "this is not a Debian/Ubuntu system (no dpkg-query/apt-get).
        Install a C11 compiler, CMake >= $MIN_CMAKE, Open MPI (with headers), libyaml (with headers),
        Python 3 with matplotlib (for throng report) and pkg-config, then re-run with THRONG_SKIP_INSTALL=1 scripts/setup.sh"
  fi
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "all packages present: ${PACKAGES[*]}"
  else
    log "missing packages: ${missing[*]}"
    apt_install "${missing[@]}"
  fi
}

# ---- CMake >= 3.25 ----------------------------------------------------------
version_ge() { # version_ge A B: is A >= B?
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1) == "$2" ]]
}
cmake_version() { "$1" --version 2>/dev/null | head -n1 | awk '{print $3}'; }

CMAKE=""
find_cmake() {
  local c v
  for c in "$(command -v cmake 2>/dev/null || true)" "$TOOLS_DIR/bin/cmake"; do
    [[ -n $c && -x $c ]] || continue
    v=$(cmake_version "$c")
    if [[ -n $v ]] && version_ge "$v" "$MIN_CMAKE"; then
      CMAKE=$c
      log "using $c (version $v)"
      return 0
    fi
  done
  return 1
}

ensure_cmake() {
  find_cmake && return
  local have
  have=$(cmake_version "$(command -v cmake 2>/dev/null || echo cmake)" || true)
  if [[ $SKIP_INSTALL == 1 ]]; then
    die "CMake >= $MIN_CMAKE is needed (found: ${have:-none}); install one, or run without THRONG_SKIP_INSTALL"
  fi
  # Ubuntu 22.04 ships CMake 3.22: take CMake from PyPI into a private venv.
  log "system CMake is ${have:-missing}, need >= $MIN_CMAKE: installing CMake from PyPI into $TOOLS_DIR"
  is_installed python3-venv || apt_install python3-venv
  mkdir -p "$(dirname "$TOOLS_DIR")"
  python3 -m venv "$TOOLS_DIR" || die "python3 -m venv $TOOLS_DIR failed"
  "$TOOLS_DIR/bin/pip" install -q --disable-pip-version-check "cmake>=$MIN_CMAKE" ||
    die "pip install cmake>=$MIN_CMAKE failed; install CMake >= $MIN_CMAKE yourself and put it first on PATH"
  find_cmake || die "CMake from PyPI is not usable ($TOOLS_DIR/bin/cmake)"
}

# ---- main --------------------------------------------------------------------
log "repository: $ROOT"
install_packages
ensure_cmake

for tool in cc mpicc python3; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found on PATH after installation"
done

set -f # split THRONG_CMAKE_ARGS on blanks, without expanding wildcards
# shellcheck disable=SC2206
EXTRA=(${CMAKE_ARGS})
set +f
log "configuring: $CMAKE -S . -B $BUILD_DIR ${EXTRA[*]}"
"$CMAKE" -S . -B "$BUILD_DIR" "${EXTRA[@]}" || die "CMake configure failed (see the messages above)"

log "building: $CMAKE --build $BUILD_DIR -j$JOBS"
"$CMAKE" --build "$BUILD_DIR" -j"$JOBS" || die "build failed (see the compiler messages above)"

if [[ -x $BUILD_DIR/bin/throng ]]; then
  log "done: $BUILD_DIR/bin/throng"
else
  die "build finished but $BUILD_DIR/bin/throng is missing"
fi
