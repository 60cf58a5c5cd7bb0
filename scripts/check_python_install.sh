#!/usr/bin/env bash
# Proves the README's two ways to install the Python module:
# 1. `cmake --install` of a build (default: build/dev) puts the package where
#    Debian's /usr/bin/python3 imports it for the install prefix;
# 2. `pip install --no-build-isolation .` from this checkout works offline in a
#    fresh virtual environment that uses Debian 12's python3-setuptools and
#    python3-wheel (--system-site-packages); hwrec then imports from outside the
#    source tree and makes one round trip through a store. pip configures and
#    builds in a directory of its own (build/pip), with the dev preset's
#    compiler flags (HWREC_CMAKE_ARGS, setup.py) so that ccache, when
#    installed, serves its compiles from the dev build's.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${1:-build/dev}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

DESTDIR="$work/root" cmake --install "$build" >/dev/null
module=$(find "$work/root" -name '_hwrec*.so' -print -quit)
if [[ -z $module ]]; then
  echo "check_python_install: cmake --install placed no hwrec module under $work/root" >&2
  exit 1
fi
site=$(dirname "$(dirname "${module#"$work/root"}")")
if ! /usr/bin/python3 -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$site"; then
  echo "check_python_install: cmake --install put hwrec in $site, which /usr/bin/python3 does not import from" >&2
  exit 1
fi
(cd "$work" && PYTHONPATH="$work/root$site" /usr/bin/python3 -c \
  'import hwrec, sys; print(f"cmake --install: hwrec {hwrec.__version__} in {sys.argv[1]}")' "$site")

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export HWREC_CMAKE_BUILD_DIR=${HWREC_CMAKE_BUILD_DIR:-$src/build/pip}
# The flags of the dev preset (CMakePresets.json).
if [[ -z ${HWREC_CMAKE_ARGS+set} ]]; then
  HWREC_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWREC_WARNINGS_AS_ERRORS=ON"
  HWREC_CMAKE_ARGS+=" '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG'"
fi
export HWREC_CMAKE_ARGS
"$work/venv/bin/python" -m pip install --no-build-isolation --no-index -q "$src"

cd "$work"
"$work/venv/bin/python" - "$src" <<'PY'
import pathlib, sys
import hwrec

src = pathlib.Path(sys.argv[1])
where = pathlib.Path(hwrec.__file__).resolve()
assert src not in where.parents, f"hwrec imported from the source tree: {where}"
with hwrec.Store.init("pip-check.db") as store:
    pools = store.register_pools(str(src / "examples/pools.jsonl"))
    summary = store.ingest(str(src / "examples/observations.jsonl"))
    rec = store.recommend("ghcr.io/acme/llm-finetune:2.3", pool="siteb-h100-80gb")
    assert pools.registered > 0 and summary.accepted > 0, (pools, summary)
    print(f"pip install: hwrec {hwrec.__version__} from {where.parent}: "
          f"{pools.registered} pools, {summary.accepted} observations, "
          f"gpu_memory_gb {rec.figures['gpu_memory_gb'].value}")
PY
