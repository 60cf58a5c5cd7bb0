# Warnings and sanitizers as INTERFACE targets: strict when hwrec is the top
# level project, quiet when it is consumed by another build.
add_library(hwrec_warnings INTERFACE)
target_compile_options(hwrec_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference
  -Wimplicit-fallthrough)
if(HWREC_WARNINGS_AS_ERRORS)
  target_compile_options(hwrec_warnings INTERFACE -Werror)
endif()
# GCC's -Wmaybe-uninitialized is unreliable on code instrumented by the
# sanitizers (at -O1 it reports libstdc++'s own std::regex and std::function);
# the dev build keeps it.
if(HWREC_SANITIZE OR HWREC_SANITIZE_THREAD)
  target_compile_options(hwrec_warnings INTERFACE -Wno-maybe-uninitialized)
endif()
# GCC 12 at -O2 sees null dereferences in libstdc++'s std::vector once it has
# inlined it into Boost.Program_options' typed_value::notify and pybind11's
# clear_patients (false positives in those headers, not in hwrec's code). The
# CLI and the Python module link this after hwrec_warnings, which it outranks.
add_library(hwrec_third_party_inlining INTERFACE)
target_compile_options(hwrec_third_party_inlining INTERFACE -Wno-null-dereference)

# The sanitizer builds link their programs as position-dependent executables:
# a sanitized program relocates over a million pointers at every start when
# it is PIE (a tenth of a second, and half its start-up page faults), and the
# tests start the CLI many hundreds of times.
add_library(hwrec_sanitizers INTERFACE)
if(HWREC_SANITIZE OR HWREC_SANITIZE_THREAD)
  target_link_options(hwrec_sanitizers INTERFACE
    $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()
if(HWREC_SANITIZE)
  target_compile_options(hwrec_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(hwrec_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(HWREC_SANITIZE_THREAD)
  if(HWREC_SANITIZE)
    message(FATAL_ERROR "HWREC_SANITIZE_THREAD and HWREC_SANITIZE cannot be combined")
  endif()
  target_compile_options(hwrec_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(hwrec_sanitizers INTERFACE -fsanitize=thread)
endif()

# hwrec_unity_by_four(<target>): where the preset does not build every target
# as unity units (the sanitizer presets do, eight files a unit), <target>
# compiles four files a unit: templates instantiated once for several files,
# while a changed file recompiles with only three neighbours.
function(hwrec_unity_by_four target)
  if(NOT CMAKE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 4)
  endif()
endfunction()

# hwrec_install_rpath(<target> <install dir>): when libhwrec is shared, the
# installed <target> (a tool in bin/, the Python module in site-packages) finds
# it through a RUNPATH relative to itself ($ORIGIN/../lib), so the install
# tree can be moved. The build tree needs nothing: CMake's build RPATH points
# at the library in the build directory.
function(hwrec_install_rpath target install_dir)
  if(NOT BUILD_SHARED_LIBS)
    return()
  endif()
  if(NOT IS_ABSOLUTE "${install_dir}")
    set(install_dir "${CMAKE_INSTALL_PREFIX}/${install_dir}")
  endif()
  file(RELATIVE_PATH to_lib "${install_dir}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_lib}")
endfunction()
