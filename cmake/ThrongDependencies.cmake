# Required: MPI (the executable is always an MPI program) and libyaml.
find_package(MPI REQUIRED COMPONENTS C)

find_path(YAML_INCLUDE_DIR yaml.h)
find_library(YAML_LIBRARY NAMES yaml yaml-0)
if(NOT YAML_INCLUDE_DIR OR NOT YAML_LIBRARY)
  message(FATAL_ERROR "libyaml not found: install libyaml-dev (scripts/setup.sh does), "
                      "or pass -DYAML_INCLUDE_DIR=... -DYAML_LIBRARY=...")
endif()
add_library(throng_yaml INTERFACE)
target_include_directories(throng_yaml INTERFACE ${YAML_INCLUDE_DIR})
target_link_libraries(throng_yaml INTERFACE ${YAML_LIBRARY})

find_library(MATH_LIBRARY m)

set(THRONG_HAVE_OPENMP OFF)
if(THRONG_OPENMP)
  find_package(OpenMP COMPONENTS C)
  if(OpenMP_C_FOUND)
    set(THRONG_HAVE_OPENMP ON)
  endif()
endif()

# CUDA: AUTO enables it when a CUDA compiler is found. The architectures
# are CMake's own CMAKE_CUDA_ARCHITECTURES (the one setting; default 90 =
# Hopper SASS plus compute_90 PTX, which newer GPUs JIT-compile).
set(THRONG_HAVE_CUDA OFF)
if(NOT THRONG_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(THRONG_HAVE_CUDA ON)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures to build for (90: H100/H200)")
    endif()
    find_package(CUDAToolkit REQUIRED)
  elseif(THRONG_CUDA STREQUAL "ON")
    message(FATAL_ERROR "THRONG_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or PATH)")
  endif()
endif()

# Options declared before their code exists say so, rather than pretend:
# AUTO builds without the part and tells why; ON stops.
function(throng_not_yet option what)
  if(${option} STREQUAL "ON")
    message(FATAL_ERROR "${option}=ON: ${what} is not part of this version of throng yet "
                        "(docs/status.md); configure with ${option}=AUTO or OFF")
  elseif(${option} STREQUAL "AUTO")
    message(STATUS "${option}=AUTO: ${what} is not part of this version yet (docs/status.md); building without it")
  endif()
endfunction()
# HDF5: trajectories (the Jülich archive layout, XDMF sidecar) and
# checkpoints. Parallel HDF5 (Debian: libhdf5-openmpi-dev, what ParaView's
# package links) lets every rank write its own rows; a serial HDF5 (the GPU
# machine has only that) works too: rank 0 then writes what the ranks send it.
set(THRONG_HAVE_HDF5 OFF)
set(THRONG_HDF5_PARALLEL OFF)
if(NOT THRONG_HDF5 STREQUAL "OFF")
  if(NOT DEFINED HDF5_PREFER_PARALLEL)
    set(HDF5_PREFER_PARALLEL ON) # -DHDF5_PREFER_PARALLEL=OFF picks a serial HDF5 where both are installed
  endif()
  find_package(HDF5 COMPONENTS C QUIET)
  if(HDF5_FOUND)
    set(THRONG_HAVE_HDF5 ON)
    set(THRONG_HDF5_PARALLEL ${HDF5_IS_PARALLEL})
    add_library(throng_hdf5 INTERFACE)
    target_include_directories(throng_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
    target_link_libraries(throng_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
    target_compile_definitions(throng_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
    message(STATUS "THRONG_HDF5: HDF5 ${HDF5_VERSION} (parallel: ${HDF5_IS_PARALLEL})")
  elseif(THRONG_HDF5 STREQUAL "ON")
    message(FATAL_ERROR "THRONG_HDF5=ON but HDF5 was not found: install libhdf5-openmpi-dev (parallel) or "
                        "libhdf5-dev (serial), or pass -DHDF5_ROOT=...")
  else()
    message(STATUS "THRONG_HDF5=AUTO: HDF5 not found (install libhdf5-openmpi-dev); building without HDF5 "
                   "output and checkpoints")
  endif()
endif()
set(THRONG_HAVE_CATALYST OFF)
throng_not_yet(THRONG_CATALYST "the ParaView Catalyst adaptor")
