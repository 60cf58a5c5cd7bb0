#!/usr/bin/env bash
# Installs the dependencies, builds with a CMake preset (default: dev) and runs
# every test with CTest, one more at once than the machine has cores (the Python
# module's pytest suite among them). The dev preset first checks the C++
# formatting (scripts/check_format.sh), and after the tests proves both
# installs of the Python module (`cmake --install`, and `pip install
# --no-build-isolation .` into a fresh virtual environment); its CTest
# installs the shared libhwrec it built and builds a consumer against it
# (package_consumer_builds). `scripts/test.sh asan` runs the C++ tests under
# ASan + UBSan against a static libhwrec (which its CTest installs and
# consumes in turn), `scripts/test.sh tsan` under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}

bash scripts/deps.sh test
if [[ $preset == dev ]]; then
  bash scripts/check_format.sh
fi
cmake --preset "$preset"
cmake --build --preset "$preset"
# One entry more than the cores: the PostgreSQL entries wait on their server
# and the browser ones on Chromium, leaving a core idle at -j nproc.
ctest --preset "$preset" -j "$(($(nproc) + 1))"
if [[ $preset == dev ]]; then
  bash scripts/check_python_install.sh "build/$preset"
fi
