#!/usr/bin/env bash
# Installs the dependencies, builds with a CMake preset (default: dev) and runs
# every test with CTest (the Python module's pytest suite among them). The dev
# preset also proves both installs of the Python module (`cmake --install`,
# and `pip install --no-build-isolation .` into a fresh virtual environment). `scripts/test.sh asan` runs the C++ tests under ASan + UBSan,
# `scripts/test.sh tsan` under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}

bash scripts/deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" -j2
if [[ $preset == dev ]]; then
  bash scripts/check_python_install.sh "build/$preset"
fi
