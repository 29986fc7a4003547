#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests, CI and the bench: a fresh data directory in a temp
# dir, trust auth, a free loopback port, the socket in the temp dir, fsync off (on with PG_DURABLE=1). Starts in ~1 s.
#
#   eval "$(bash scripts/throwaway-postgres.sh start)"   # sets and exports DATABASE_URL, PG_THROWAWAY_DIR
#   bash scripts/throwaway-postgres.sh stop "$PG_THROWAWAY_DIR"
#
# `halt DIR` stops the server and keeps its data; `resume DIR` starts it again on the same port
# (tests of a database outage).
#
# `start` prints only shell assignments on stdout (progress and errors go to stderr):
#   DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres
#   PG_THROWAWAY_DIR=/tmp/crondeck-pg.XXXXXX
#   export DATABASE_URL PG_THROWAWAY_DIR
#
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT (default: a free port),
# PG_DURABLE=1 (fsync, synchronous_commit and full_page_writes left on, as a production server has
# them: the bench measures writes that way).
# Run as root, the cluster belongs to the `postgres` user (initdb refuses to run as root).
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
MARKER=".crondeck-throwaway-postgres"

die() {
  echo "throwaway-postgres: $*" >&2
  exit 1
}

usage() {
  echo "usage: $0 start | stop DIR | halt DIR | resume DIR" >&2
  exit 2
}

check_binaries() {
  local tool
  for tool in initdb pg_ctl; do
    [[ -x "$PG_BIN/$tool" ]] || die "PostgreSQL 15 server binaries not found: $PG_BIN/$tool is missing.
  Install them (Debian: apt-get install -y postgresql-15) or point PG_BIN at the directory that holds initdb and pg_ctl."
  done
}

# Runs a command as the cluster's owner: `postgres` when we are root, otherwise ourselves.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user to own the cluster (initdb refuses root)"
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  if [[ -n "${PG_PORT:-}" ]]; then
    echo "$PG_PORT"
  elif command -v node >/dev/null 2>&1; then
    node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}

start_server() {
  as_owner "$PG_BIN/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 30 -o "$(cat "$1/server.opts")" start >/dev/null 2>&1
}

# A directory this script created, or nothing is done to it.
check_ours() {
  [[ -n "${1:-}" ]] || usage
  [[ -d "$1" ]] || die "no such directory: $1"
  [[ -f "$1/$MARKER" ]] || die "$1 was not created by this script; refusing to touch it"
}

halt() {
  check_ours "${1:-}"
  check_binaries
  as_owner "$PG_BIN/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null
}

resume() {
  check_ours "${1:-}"
  check_binaries
  start_server "$1" || {
    cat "$1/server.log" >&2
    die "the server did not start again (log above)"
  }
}

start() {
  check_binaries
  local dir port attempt
  dir=$(mktemp -d "${TMPDIR:-/tmp}/crondeck-pg.XXXXXX")
  touch "$dir/$MARKER"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
  chmod 700 "$dir"

  if ! as_owner "$PG_BIN/initdb" -D "$dir/data" --auth=trust --username=postgres --encoding=UTF8 \
    --locale=C.UTF-8 --no-instructions >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    rm -rf "$dir"
    die "initdb failed (log above)"
  fi

  # glibc's malloc starts by giving blocks over 128 KiB back to the kernel when they are freed, and
  # raises that bar only once a backend has freed a larger block: a backend's speed then depends on
  # what it ran before. Queries over the mailbox bitmaps allocate such blocks on every run; on a
  # fresh backend they took 40% longer. Fixed bars make every backend alike (the bench compares the
  # service's connections with its own).
  export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864

  local durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [[ "${PG_DURABLE:-}" == 1 ]] && durability=""

  # A port found free can be taken before the server binds it: try a few.
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    # Kept for `resume`, which starts the server again exactly so.
    echo "-p $port -k $dir -c listen_addresses=127.0.0.1 $durability" >"$dir/server.opts"
    if start_server "$dir"; then
      echo "DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
      echo "PG_THROWAWAY_DIR=$dir"
      echo "export DATABASE_URL PG_THROWAWAY_DIR"
      echo "throwaway-postgres: PostgreSQL 15 on 127.0.0.1:$port, data in $dir" >&2
      return 0
    fi
    [[ -n "${PG_PORT:-}" ]] && break
    echo "throwaway-postgres: start on port $port failed (attempt $attempt), retrying" >&2
  done
  cat "$dir/server.log" >&2 2>/dev/null || true
  rm -rf "$dir"
  die "the server did not start (log above)"
}

stop() {
  local dir="${1:-}"
  # Never remove a directory this script did not create.
  check_ours "$dir"
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    check_binaries
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 ||
      echo "throwaway-postgres: pg_ctl stop failed; removing $dir anyway" >&2
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  halt) halt "${2:-}" ;;
  resume) resume "${2:-}" ;;
  *) usage ;;
esac
