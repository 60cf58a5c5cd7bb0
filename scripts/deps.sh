#!/usr/bin/env bash
# Installs what hwrec needs from Debian 12's packages, and runs `apt-get
# update` once, only when something is missing.
#
#   scripts/deps.sh build   what building the library, the hwrec CLI and the
#                           Python module and running them needs (the quick
#                           start, examples/quickstart.sh)
#   scripts/deps.sh [test]  that and what the tests need besides: Catch2,
#                           clang-format, clang-tidy, the PostgreSQL server, pytest, venv,
#                           Chromium and PIL for the report's browser test
set -euo pipefail

what=${1:-test}
build=(
  cmake ninja-build ccache g++ pkgconf
  libsqlitecpp-dev libsqlite3-dev libfmt-dev libboost-program-options-dev libpq-dev
  nlohmann-json3-dev libhowardhinnant-date-dev libssl-dev
  python3 python3-dev pybind11-dev
)
test=(
  catch2 clang-format clang-tidy sqlite3 postgresql
  python3-pytest python3-venv python3-setuptools python3-wheel
  python3-mypy   # stubtest and mypy --strict on the module's stubs, example and docs
  chromium python3-pil fonts-dejavu-core   # the report's headless-browser test
)
case $what in
  build) packages=("${build[@]}") ;;
  test) packages=("${build[@]}" "${test[@]}") ;;
  *)
    echo "usage: scripts/deps.sh [build|test]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} > 0)); then
  echo "hwrec: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
