#!/usr/bin/env bash
# Regenerates schema/schema.postgresql.sql: a throwaway PostgreSQL server
# (scripts/pg_server.sh), a fresh store on it made by `hwrec init`, and that
# store's `hwrec schema`. The server is stopped even when a step fails. Without
# PostgreSQL server binaries it says so and leaves OUTPUT as it is (exit 0),
# so the `schema` build target still works on a machine without them.
#
#   scripts/dump_pg_schema.sh HWREC OUTPUT   (HWREC: the hwrec binary)
set -euo pipefail

hwrec=${1:?usage: dump_pg_schema.sh HWREC OUTPUT}
output=${2:?usage: dump_pg_schema.sh HWREC OUTPUT}
here=$(cd "$(dirname "$0")" && pwd)

if ! "$here/pg_server.sh" bindir >/dev/null 2>&1; then
  echo "dump_pg_schema: no PostgreSQL server binaries: $output left as it is" >&2
  exit 0
fi

dir=$(mktemp -d)
trap '"$here/pg_server.sh" stop "$dir" || true; rm -rf "$dir"' EXIT
uri=$("$here/pg_server.sh" start "$dir")
"$hwrec" init "$uri" >/dev/null
"$hwrec" schema "$uri" --output "$output"
