#!/usr/bin/env bash
# Runs clang-tidy, with the committed .clang-tidy (which says why each check
# is in or out), on every source file of the library (src/), and fails on any
# finding: the configuration makes every warning an error. The files are
# checked in unity units of eight, as the sanitizer builds compile them, so
# that the heavy headers are parsed once a unit: about 1.5 minutes on two
# cores, against 4 to 6 file by file. The compile database comes from a
# configure of its own in build/tidy, without GCC's precompiled headers
# (clang cannot read them); nothing is built but the embedded migrations'
# source. A stage of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
cmake -S . -B build/tidy -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 \
  -DHWREC_BUILD_TESTS=OFF -DHWREC_BUILD_TOOLS=OFF -DHWREC_PYTHON=OFF -DHWREC_CCACHE=OFF >/dev/null
ninja -C build/tidy src/embedded_migrations.cpp >/dev/null
units=build/tidy/src/CMakeFiles/hwrec_objects.dir/Unity
files=$(cat "$units"/unity_*_cxx.cxx | grep -c '^#include')
echo "clang-tidy: the ${files} files of src/ in $(ls "$units" | wc -l) units" \
  "($(clang-tidy --version | grep -o 'version [0-9.]*'))"
status=0
run-clang-tidy -p build/tidy -j "$(nproc)" -quiet "hwrec_objects\\.dir/Unity/unity_[0-9]+_cxx\\.cxx\$" \
  >build/tidy/clang-tidy.log 2>&1 || status=$?
sed -e 's/\x1b\[[0-9;]*m//g' build/tidy/clang-tidy.log |
  grep -v -e '^Suppressed [0-9]* warnings' -e '^Use -header-filter' \
    -e '^[0-9]* warnings\? \(and [0-9]* errors\? \)\?generated\.$' \
    -e '^[0-9]* warnings\? treated as errors\?$' -e '^clang-tidy-14 ' -e '^$' || true
if ((status != 0)); then
  echo "clang-tidy: findings above (exit ${status}): fix them, or say in .clang-tidy why a check is off"
  exit "$status"
fi
echo "clang-tidy: nothing to report"
