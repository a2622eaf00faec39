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

# CUDA: AUTO enables it when a CUDA compiler is found.
set(THRONG_HAVE_CUDA OFF)
if(NOT THRONG_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(THRONG_HAVE_CUDA ON)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    find_package(CUDAToolkit REQUIRED)
  elseif(THRONG_CUDA STREQUAL "ON")
    message(FATAL_ERROR "THRONG_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or PATH)")
  endif()
endif()

# HDF5 (declared now; the HDF5 writer comes with the evacuation work).
set(THRONG_HAVE_HDF5 OFF)
if(NOT THRONG_HDF5 STREQUAL "OFF")
  find_package(HDF5 COMPONENTS C QUIET)
  if(HDF5_FOUND)
    set(THRONG_HAVE_HDF5 ON)
  elseif(THRONG_HDF5 STREQUAL "ON")
    message(FATAL_ERROR "THRONG_HDF5=ON but HDF5 was not found (apt-get install libhdf5-openmpi-dev)")
  endif()
endif()

# ParaView Catalyst (declared now; the adaptor comes with the in-situ work).
set(THRONG_HAVE_CATALYST OFF)
if(THRONG_CATALYST STREQUAL "ON")
  message(FATAL_ERROR "THRONG_CATALYST=ON: the Catalyst adaptor is not part of this version yet")
endif()
