# Installs the library, its public headers and the hwrec::hwrec package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS hwrec hwrec_warnings hwrec_sanitizers EXPORT hwrecTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/hwrec DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT hwrecTargets NAMESPACE hwrec::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)
configure_package_config_file(cmake/hwrecConfig.cmake.in
  "${PROJECT_BINARY_DIR}/hwrecConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/hwrecConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/hwrecConfig.cmake"
              "${PROJECT_BINARY_DIR}/hwrecConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)
if(HWREC_BUILD_TOOLS)
  install(TARGETS hwrec_cli hwrec_bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
