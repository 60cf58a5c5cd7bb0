# Installs the library, its public headers, the hwrec::hwrec CMake package and
# hwrec.pc for pkg-config (only with HWREC_INSTALL). Only hwrec::hwrec is
# exported: the warning and sanitizer targets are build-only.
include(CMakePackageConfigHelpers)

install(TARGETS hwrec EXPORT hwrecTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/hwrec DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT hwrecTargets NAMESPACE hwrec::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)

# A static libhwrec carries none of its dependencies: hwrecConfig.cmake finds
# them for the consumer's link, and hwrec.pc lists them in its Libs and
# Requires. A shared one links them itself: they become Libs.private and
# Requires.private (used by `pkg-config --static` only).
get_target_property(hwrec_type hwrec TYPE)
if(hwrec_type STREQUAL "STATIC_LIBRARY")
  set(HWREC_CONFIG_STATIC TRUE)
  set(HWREC_PC_LIBS "-lhwrec -lSQLiteCpp -ldl -pthread")
  set(HWREC_PC_LIBS_PRIVATE "")
  set(HWREC_PC_REQUIRES "sqlite3 fmt libcrypto libpq")
  set(HWREC_PC_REQUIRES_PRIVATE "")
else()
  set(HWREC_CONFIG_STATIC FALSE)
  set(HWREC_PC_LIBS "-lhwrec")
  set(HWREC_PC_LIBS_PRIVATE "-lSQLiteCpp -ldl -pthread")
  set(HWREC_PC_REQUIRES "")
  set(HWREC_PC_REQUIRES_PRIVATE "sqlite3 fmt libcrypto libpq")
endif()

configure_package_config_file(cmake/hwrecConfig.cmake.in
  "${PROJECT_BINARY_DIR}/hwrecConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/hwrecConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/hwrecConfig.cmake"
              "${PROJECT_BINARY_DIR}/hwrecConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hwrec)

configure_file(cmake/hwrec.pc.in "${PROJECT_BINARY_DIR}/hwrec.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/hwrec.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(HWREC_BUILD_TOOLS)
  hwrec_install_rpath(hwrec_cli ${CMAKE_INSTALL_BINDIR})
  install(TARGETS hwrec_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET hwrec_bench)
  hwrec_install_rpath(hwrec_bench ${CMAKE_INSTALL_BINDIR})
  install(TARGETS hwrec_bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
