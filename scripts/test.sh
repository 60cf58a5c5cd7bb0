#!/usr/bin/env bash
# Installs the dependencies, builds with a CMake preset (default: dev) and runs
# every test with CTest (the Python module's pytest suite among them). The dev
# preset first checks the C++ formatting (scripts/check_format.sh), and after
# the tests proves both installs of the Python module (`cmake --install`, and
# `pip install --no-build-isolation .` into a fresh virtual environment); its
# CTest also builds hwrec as a shared library with the tests but without the
# tools (package_consumer_builds). `scripts/test.sh asan` runs the C++ tests
# under ASan + UBSan, `scripts/test.sh tsan` under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}

bash scripts/deps.sh
if [[ $preset == dev ]]; then
  bash scripts/check_format.sh
fi
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" -j2
if [[ $preset == dev ]]; then
  bash scripts/check_python_install.sh "build/$preset"
fi
