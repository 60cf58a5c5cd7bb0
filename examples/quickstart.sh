#!/usr/bin/env bash
# The README's first command: install what building and running hwrec needs,
# build the hwrec CLI and the Python module (not the tests or the benchmark),
# and run hwrec end to end on the bundled example (init, pools import, ingest,
# status) in a fresh store, then the simulated Runner of
# examples/runner_loop.py through the Python module. It builds in build/dev,
# the test command's build, which then reuses the library.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh build
cmake --preset dev -DHWREC_BUILD_TESTS=OFF >/dev/null
cmake --build --preset dev --target hwrec_cli hwrec_python

hwrec=build/dev/tools/hwrec
store=build/example.db
rm -f "$store" "$store-wal" "$store-shm"

run() {
  echo
  echo "\$ hwrec $*"
  "$hwrec" "$@"
}

run init "$store"
run pools import "$store" examples/pools.jsonl
run pools list "$store"
# The example holds a bad record, a misspelt field (a warning) and one re-sent
# execution on purpose:
# ingest keeps the good ones, reports the rest and exits 3 (partial).
rc=0
run ingest "$store" examples/observations.jsonl || rc=$?
if [[ $rc -ne 3 ]]; then
  echo "quickstart: expected ingest to exit 3 (some records rejected), got $rc" >&2
  exit 1
fi
run status "$store"
run recommend "$store" --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb --explain
run recommend "$store" --image ghcr.io/acme/resnet-infer:1.8 --pool sitea-a30-mig
echo
echo "Inspect it yourself: sqlite3 -header $store 'SELECT * FROM v_recommendations LIMIT 10'"

echo
echo "\$ python3 examples/runner_loop.py   # a simulated Runner linking hwrec in-process"
rm -f build/runner-loop.db build/runner-loop.db-wal build/runner-loop.db-shm
PYTHONPATH=build/dev/python /usr/bin/python3 examples/runner_loop.py --store build/runner-loop.db
