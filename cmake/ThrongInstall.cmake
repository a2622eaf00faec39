# `cmake --install BUILD [--prefix DIR]`: the programs, the library with its
# headers, an exported package (find_package(throng) -> throng::core), the
# scenarios, the job scripts and the report script (`throng report`).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(THRONG_EXPORTED throng_core throng_yaml)
if(THRONG_HAVE_CUDA)
  list(APPEND THRONG_EXPORTED throng_cuda)
endif()
if(THRONG_HAVE_HDF5)
  list(APPEND THRONG_EXPORTED throng_hdf5)
endif()
if(THRONG_HAVE_GEOS)
  list(APPEND THRONG_EXPORTED throng_geos)
endif()
foreach(t ${THRONG_EXPORTED})
  string(REGEX REPLACE "^throng_" "" short ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${short}) # throng::core, throng::yaml, throng::cuda
endforeach()
install(TARGETS throng throng-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the Catalyst module, where the loader looks: bin/../lib/throng/
if(THRONG_HAVE_CATALYST)
  install(TARGETS throng_catalyst LIBRARY DESTINATION lib/throng)
endif()
install(TARGETS ${THRONG_EXPORTED} EXPORT throngTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/throng)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/throng
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/src/build_info.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/throng)
install(EXPORT throngTargets NAMESPACE throng:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/throng)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/throngConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/throngConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/throng)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/throngConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/throngConfig.cmake ${PROJECT_BINARY_DIR}/throngConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/throng)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/throng/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/throng/jobs)
# `throng report` looks for it at ../share/throng/report.py from the executable
install(FILES ${PROJECT_SOURCE_DIR}/scripts/report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/throng)
