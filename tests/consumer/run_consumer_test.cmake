# The installed package, tested the way users consume it. Script mode:
#   -DHWREC_SOURCE_DIR= -DHWREC_BINARY_DIR= -DHWREC_SHARED=ON|OFF -DBUILD_TYPE=
#   -DCONSUMER_SOURCE_DIR= -DWORK_DIR= -DCXX= -DPKG_CONFIG=
# 1. Installs the build in HWREC_BINARY_DIR into WORK_DIR/<kind>/prefix and
#    builds the consumer (main.cpp) against it twice: as a CMake project with
#    find_package(hwrec), and as a plain compile with `pkg-config --cflags
#    --libs hwrec`; runs both.
# 2. Builds hwrec again as the other kind of library (shared when the build is
#    static, and the reverse) with the tests but without the tools
#    (HWREC_BUILD_TOOLS=OFF), runs that hwrec_tests (the test files that do not
#    run the CLI or the benchmark), installs it and repeats 1 against it.
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
      "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${dir}/cmake-build"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}")
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
  run("pkg-config --variable=libdir hwrec (${kind})" ${pkg_config} --variable=libdir hwrec)
  string(STRIP "${run_output}" libdir)
  run("compiling the consumer with pkg-config's flags (${kind})"
      "${CXX}" -std=c++17 "${CONSUMER_SOURCE_DIR}/main.cpp" ${flags} "-Wl,-rpath,${libdir}"
      -o "${dir}/consumer-pkg-config")
  run("running the consumer built with pkg-config (${kind})" "${dir}/consumer-pkg-config")
  message(STATUS "pkg-config, ${kind}: ${run_output}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
if(HWREC_SHARED)
  set(kind shared)
  set(other_kind static)
  set(other_shared OFF)
else()
  set(kind static)
  set(other_kind shared)
  set(other_shared ON)
endif()
consume(${kind} "${HWREC_BINARY_DIR}")

set(other_build "${WORK_DIR}/${other_kind}-build")
run("configuring a ${other_kind} hwrec without the tools"
    "${CMAKE_COMMAND}" -S "${HWREC_SOURCE_DIR}" -B "${other_build}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
    "-DCMAKE_CXX_COMPILER=${CXX}" -DBUILD_SHARED_LIBS=${other_shared}
    -DHWREC_BUILD_TESTS=ON -DHWREC_BUILD_TOOLS=OFF -DHWREC_PYTHON=OFF)
run("building the ${other_kind} hwrec and its tests without the tools"
    "${CMAKE_COMMAND}" --build "${other_build}" --target hwrec hwrec_tests --parallel 2)
run("the tests against the ${other_kind} hwrec, without the tools" "${other_build}/tests/hwrec_tests")
string(REGEX MATCH "[^\n]*(passed|test cases)[^\n]*" summary "${run_output}")
message(STATUS "hwrec_tests without the tools, ${other_kind}: ${summary}")
consume(${other_kind} "${other_build}")
