#!/usr/bin/env bash
# A throwaway PostgreSQL server for hwrec's tests and benchmarks: initdb in
# DIR, listening on 127.0.0.1 only (and a socket in DIR), run as an
# unprivileged user (hwrec-pg when started as root, with its data in a
# private directory under /tmp that `stop` removes), trust authentication
# for the one local user `hwrec`.
#
#   scripts/pg_server.sh start DIR [PORT]  prints the store URI (also in DIR/uri)
#   (the server log is in the directory DIR/datadir names: server.log)
#   scripts/pg_server.sh restart DIR       a fast restart (clients are cut off)
#   scripts/pg_server.sh standby PRIMARY DIR [PORT]
#                                          a synchronous streaming standby of the
#                                          server started in PRIMARY: prints its URI
#   scripts/pg_server.sh kill DIR          SIGKILLs the server (a crash; a standby may
#                                          then be promoted); stop still cleans up
#   scripts/pg_server.sh promote DIR       makes the standby in DIR the primary
#   scripts/pg_server.sh stop DIR          stops it; DIR is left for the caller
#   scripts/pg_server.sh bindir            the server binaries found, or exit 2
#
# HWREC_PG_BINDIR overrides where initdb and pg_ctl are looked for;
# HWREC_PG_DURABLE=1 keeps fsync on (benchmarks), tests run without it.
set -euo pipefail

bindir() {
  if [[ -n "${HWREC_PG_BINDIR:-}" ]]; then
    echo "$HWREC_PG_BINDIR"
    return
  fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -z "$found" || ! -x "$found/initdb" ]]; then
    echo "pg_server: no PostgreSQL server binaries (initdb, pg_ctl): install Debian's" \
      "postgresql package, or set HWREC_PG_BINDIR" >&2
    exit 2
  fi
  echo "$found"
}

# Runs a server binary as the unprivileged owner of DIR.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u hwrec-pg -- "$@"
  else
    "$@"
  fi
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd=${1:-}
case "$cmd" in
  bindir)
    bindir
    ;;
  start)
    dir=${2:?usage: pg_server.sh start DIR [PORT]}
    port=${3:-$(free_port)}
    bin=$(bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    data="$dir"
    if [[ $(id -u) -eq 0 ]]; then
      # Two servers starting at once (CTest runs tests in parallel) may both
      # try to add the user: the one that loses finds it made.
      id hwrec-pg >/dev/null 2>&1 ||
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
          hwrec-pg 2>/dev/null || id hwrec-pg >/dev/null
      # DIR's parents may be closed to other users (mktemp -d): the server
      # keeps its files in a directory of its own.
      data=$(mktemp -d /tmp/hwrec-pg.XXXXXX)
      chown hwrec-pg "$data"
    fi
    echo "$data" >"$dir/datadir"
    fsync=off
    [[ "${HWREC_PG_DURABLE:-0}" == 1 ]] && fsync=on
    as_owner "$bin/initdb" -D "$data/data" -U hwrec --auth=trust -E UTF8 --locale=C.UTF-8 \
      --no-sync >"$data/initdb.log" 2>&1 || {
      cat "$data/initdb.log" >&2
      exit 1
    }
    as_owner "$bin/pg_ctl" -D "$data/data" -l "$data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$data \
          -c fsync=$fsync -c full_page_writes=$fsync -c max_connections=200" \
      start >/dev/null || {
      cat "$data/server.log" >&2
      exit 1
    }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U hwrec hwrec
    echo "postgresql://hwrec@127.0.0.1:$port/hwrec" | tee "$dir/uri"
    ;;
  standby)
    primary=${2:?usage: pg_server.sh standby PRIMARY DIR [PORT]}
    dir=${3:?usage: pg_server.sh standby PRIMARY DIR [PORT]}
    port=${4:-$(free_port)}
    bin=$(bindir)
    primary_port=$(sed -E 's#.*:([0-9]+)/.*#\1#' "$primary/uri")
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    data="$dir"
    if [[ $(id -u) -eq 0 ]]; then
      data=$(mktemp -d /tmp/hwrec-pg.XXXXXX)
      chown hwrec-pg "$data"
    fi
    echo "$data" >"$dir/datadir"
    # -R: standby.signal and primary_conninfo, so that it starts streaming.
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U hwrec -D "$data/data" -R -c fast \
      -X stream --no-sync >"$data/basebackup.log" 2>&1 || {
      cat "$data/basebackup.log" >&2
      exit 1
    }
    as_owner "$bin/pg_ctl" -D "$data/data" -l "$data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$data \
          -c fsync=off -c full_page_writes=off -c max_connections=200 -c hot_standby=on" \
      start >/dev/null || {
      cat "$data/server.log" >&2
      exit 1
    }
    # Commits on the primary wait for this standby to have their WAL: an
    # acknowledged commit survives the primary's loss.
    as_owner "$bin/psql" -h 127.0.0.1 -p "$primary_port" -U hwrec -d hwrec -qAt \
      -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" \
      >/dev/null
    for _ in $(seq 1 300); do
      state=$(as_owner "$bin/psql" -h 127.0.0.1 -p "$primary_port" -U hwrec -d hwrec -qAt \
        -c "SELECT sync_state FROM pg_stat_replication" 2>/dev/null || true)
      [[ "$state" == sync ]] && break
      sleep 0.1
    done
    if [[ "$state" != sync ]]; then
      echo "pg_server: the standby in $dir did not become synchronous (state '$state')" >&2
      exit 1
    fi
    echo "postgresql://hwrec@127.0.0.1:$port/hwrec" | tee "$dir/uri"
    ;;
  kill)
    dir=${2:?usage: pg_server.sh kill DIR}
    data=$(cat "$dir/datadir")
    pid=$(head -n 1 "$data/data/postmaster.pid")
    # The postmaster and its backends at once, as a crash of the host would.
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid"
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    rm -f "$data/data/postmaster.pid"  # stop then has nothing to stop
    ;;
  promote)
    dir=${2:?usage: pg_server.sh promote DIR}
    data=$(cat "$dir/datadir")
    as_owner "$(bindir)/pg_ctl" -D "$data/data" -w -t 60 promote >/dev/null
    ;;
  restart)
    dir=${2:?usage: pg_server.sh restart DIR}
    data=$(cat "$dir/datadir")
    as_owner "$(bindir)/pg_ctl" -D "$data/data" -m fast -w -t 60 restart >/dev/null
    ;;
  stop)
    dir=${2:?usage: pg_server.sh stop DIR}
    [[ -f "$dir/datadir" ]] || exit 0
    data=$(cat "$dir/datadir")
    if [[ -f "$data/data/postmaster.pid" ]]; then
      as_owner "$(bindir)/pg_ctl" -D "$data/data" -m immediate -w -t 60 stop >/dev/null || true
    fi
    if [[ "$data" != "$dir" ]]; then rm -rf "$data"; fi
    rm -f "$dir/datadir"
    ;;
  *)
    echo "usage: pg_server.sh start DIR [PORT] | standby PRIMARY DIR [PORT] | restart DIR |" \
      "kill DIR | promote DIR | stop DIR | bindir" >&2
    exit 64
    ;;
esac
