#!/usr/bin/env bash
# Installs what hwrec needs to build and test, from Debian 12's packages.
# Runs `apt-get update` once, and only when something is missing.
set -euo pipefail

packages=(
  cmake make g++ pkgconf clang-format
  libsqlitecpp-dev libsqlite3-dev sqlite3
  libfmt-dev libboost-program-options-dev libpq-dev postgresql
  nlohmann-json3-dev libhowardhinnant-date-dev libssl-dev
  catch2
  python3 python3-dev pybind11-dev python3-pytest python3-venv python3-setuptools python3-wheel
  chromium python3-pil fonts-dejavu-core   # the report's headless-browser test
)

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
