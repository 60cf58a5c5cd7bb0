# The installed package, tested the way users consume it. Script mode:
#   -DHWREC_BINARY_DIR= -DHWREC_SHARED=ON|OFF -DCONSUMER_SOURCE_DIR= -DWORK_DIR=
#   -DCXX= -DPKG_CONFIG= -DGENERATOR= [-DSANITIZE_FLAGS=]
# Installs the build in HWREC_BINARY_DIR into WORK_DIR/<kind>/prefix and
# builds the consumer (main.cpp) against it twice: as a CMake project with
# find_package(hwrec), and as a plain compile with `pkg-config --cflags
# --libs hwrec`; runs both. The dev preset builds a shared libhwrec and the
# asan preset a static one, so CI consumes both kinds without building the
# library again. A sanitized libhwrec needs its runtime in the program that
# loads it: SANITIZE_FLAGS (the build's -fsanitize=...) are added to the
# consumer's link.
cmake_minimum_required(VERSION 3.25)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(consume kind build_dir)
  set(dir "${WORK_DIR}/${kind}")
  set(prefix "${dir}/prefix")
  run("cmake --install of the ${kind} library"
      "${CMAKE_COMMAND}" --install "${build_dir}" --prefix "${prefix}")

  run("configuring the consumer against the installed ${kind} package"
      "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${dir}/cmake-build" -G "${GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}"
      "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
  run("building the consumer against the ${kind} package" "${CMAKE_COMMAND}" --build "${dir}/cmake-build")
  run("running the consumer built with find_package (${kind})" "${dir}/cmake-build/consumer")
  message(STATUS "find_package(hwrec), ${kind}: ${run_output}")

  # pkg-config: the .pc names the configured prefix; point it at the staging copy.
  file(GLOB pc_files "${prefix}/*/pkgconfig/hwrec.pc" "${prefix}/*/*/pkgconfig/hwrec.pc")
  if(NOT pc_files)
    message(FATAL_ERROR "the ${kind} install has no lib/pkgconfig/hwrec.pc")
  endif()
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  set(pkg_config "${PKG_CONFIG}" --define-variable=prefix=${prefix})
  run("pkg-config --cflags --libs hwrec (${kind})" ${pkg_config} --cflags --libs hwrec)
  string(STRIP "${run_output}" flags)
  message(STATUS "pkg-config --cflags --libs hwrec, ${kind}: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  separate_arguments(sanitize UNIX_COMMAND "${SANITIZE_FLAGS}")
  run("pkg-config --variable=libdir hwrec (${kind})" ${pkg_config} --variable=libdir hwrec)
  string(STRIP "${run_output}" libdir)
  run("compiling the consumer with pkg-config's flags (${kind})"
      "${CXX}" -std=c++17 "${CONSUMER_SOURCE_DIR}/main.cpp" ${flags} ${sanitize}
      "-Wl,-rpath,${libdir}" -o "${dir}/consumer-pkg-config")
  run("running the consumer built with pkg-config (${kind})" "${dir}/consumer-pkg-config")
  message(STATUS "pkg-config, ${kind}: ${run_output}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
if(HWREC_SHARED)
  consume(shared "${HWREC_BINARY_DIR}")
else()
  consume(static "${HWREC_BINARY_DIR}")
endif()
