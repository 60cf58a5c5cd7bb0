#!/usr/bin/env bash
# Runs COMMAND with a throwaway PostgreSQL server (scripts/pg_server.sh) whose
# URI is in HWREC_TEST_POSTGRESQL; the server is stopped when COMMAND ends,
# whatever its outcome. Without server binaries: exit 77 (CTest's "skipped")
# with a message, or exit 1 under CI, where the server is always installed.
#
#   scripts/with_pg.sh COMMAND [ARGS...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if ! "$here/pg_server.sh" bindir >/dev/null 2>&1; then
  if [[ -n "${CI:-}" ]]; then
    echo "with_pg: no PostgreSQL server binaries under CI: scripts/deps.sh installs them" >&2
    exit 1
  fi
  echo "with_pg: skipped: no PostgreSQL server binaries (install Debian's postgresql package)" >&2
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/hwrec-with-pg.XXXXXX")
cleanup() {
  "$here/pg_server.sh" stop "$dir/server" || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

uri=$("$here/pg_server.sh" start "$dir/server") || exit 1
export HWREC_TEST_POSTGRESQL="$uri"
export HWREC_TEST_POSTGRESQL_DIR="$dir/server"  # for tests that restart the server
"$@"
