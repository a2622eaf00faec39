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
    # NCCL for the halo transport (decision 0007): optional, loaded at run
    # time; here only its default path, e.g. from pip's nvidia-nccl-cu13.
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(_nccl_hints "")
    if(Python3_Interpreter_FOUND)
      execute_process(COMMAND ${Python3_EXECUTABLE} -c
                              "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))"
                      OUTPUT_VARIABLE _nccl_hints OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
    find_library(THRONG_NCCL_LIBRARY NAMES libnccl.so.2 nccl HINTS ${_nccl_hints}
                 DOC "libnccl the halo transport loads by default (optional)")
    if(THRONG_NCCL_LIBRARY)
      message(STATUS "NCCL halo transport: ${THRONG_NCCL_LIBRARY}")
    else()
      message(STATUS "NCCL halo transport: libnccl not found (runs try libnccl.so.2, or THRONG_NCCL_LIBRARY)")
    endif()
  elseif(THRONG_CUDA STREQUAL "ON")
    message(FATAL_ERROR "THRONG_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or PATH)")
  endif()
endif()

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
# GEOS (Debian: libgeos-dev): the walkable area less its obstacles, walls as
# thin cut-outs, for geometry.wkt and trajectory.h5 (what PedPy's
# WalkableArea reads; docs/output.md). Without it the outputs hold the
# walkable area as given.
set(THRONG_HAVE_GEOS OFF)
if(NOT THRONG_GEOS STREQUAL "OFF")
  find_path(THRONG_GEOS_INCLUDE geos_c.h)
  find_library(THRONG_GEOS_LIBRARY geos_c)
  if(THRONG_GEOS_INCLUDE AND THRONG_GEOS_LIBRARY)
    set(THRONG_HAVE_GEOS ON)
    add_library(throng_geos INTERFACE)
    target_include_directories(throng_geos SYSTEM INTERFACE ${THRONG_GEOS_INCLUDE})
    target_link_libraries(throng_geos INTERFACE ${THRONG_GEOS_LIBRARY})
    message(STATUS "THRONG_GEOS: ${THRONG_GEOS_LIBRARY}")
  elseif(THRONG_GEOS STREQUAL "ON")
    message(FATAL_ERROR "THRONG_GEOS=ON but GEOS was not found: install libgeos-dev")
  else()
    message(STATUS "THRONG_GEOS=AUTO: GEOS not found (install libgeos-dev); the outputs' walkable area keeps "
                   "its obstacles")
  endif()
endif()

# ParaView Catalyst (docs/insitu.md): the legacy vtkCPProcessor API of
# Debian's ParaView 5.11 (paraview-dev). Only the Catalyst module
# (src/insitu/catalyst_adaptor.cxx, loaded at run time) is C++ and links VTK;
# throng and throng::core stay C. Debian's ParaView config names third-party
# targets it never finds when COMPONENTS are given (Freetype::Freetype,
# X11::X11, ...); the module links shared libraries only, so empty
# placeholders satisfy it (../shared/reference/catalyst.md).
set(THRONG_HAVE_CATALYST OFF)
if(NOT THRONG_CATALYST STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CXX)
  if(CMAKE_CXX_COMPILER)
    find_file(THRONG_PARAVIEW_CONFIG paraview-config.cmake
              PATH_SUFFIXES lib/cmake/paraview-5.11 lib/x86_64-linux-gnu/cmake/paraview-5.11
                            lib/aarch64-linux-gnu/cmake/paraview-5.11)
  endif()
  if(CMAKE_CXX_COMPILER AND (THRONG_PARAVIEW_CONFIG OR ParaView_DIR))
    enable_language(CXX)
    foreach(_t Freetype::Freetype X11::X11 GLEW::GLEW LibXml2::LibXml2 hdf5::hdf5 hdf5::hdf5_hl NetCDF::NetCDF
               Boost::boost)
      if(NOT TARGET ${_t})
        add_library(${_t} INTERFACE IMPORTED)
      endif()
    endforeach()
    find_package(ParaView 5.11 QUIET COMPONENTS PythonCatalyst)
  endif()
  if(ParaView_FOUND AND TARGET ParaView::PythonCatalyst)
    set(THRONG_HAVE_CATALYST ON)
    message(STATUS "THRONG_CATALYST: ParaView ${ParaView_VERSION} Catalyst (legacy API), module libthrong_catalyst.so")
  else()
    set(_why "ParaView 5.11 with Catalyst was not found (install paraview-dev; scripts/setup.sh does)")
    if(NOT CMAKE_CXX_COMPILER)
      set(_why "no C++ compiler was found (install g++), which the Catalyst module needs")
    endif()
    if(THRONG_CATALYST STREQUAL "ON")
      message(FATAL_ERROR "THRONG_CATALYST=ON but ${_why}; or pass -DParaView_DIR=...")
    endif()
    message(STATUS "THRONG_CATALYST=AUTO: ${_why}; building without in situ visualisation")
  endif()
endif()
