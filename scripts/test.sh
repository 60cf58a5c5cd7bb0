#!/usr/bin/env bash
# Installs the dependencies, builds with a CMake preset (default: dev) and runs
# every test with CTest. `scripts/test.sh asan` runs them under ASan + UBSan,
# `scripts/test.sh tsan` under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}

bash scripts/deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" -j2
