#!/usr/bin/env bash
# Start a throwaway PostgreSQL server for the test suite; idempotent.
#
#   eval "$(scripts/start_postgres.sh)"    # start (or reuse) it, export PRAISONLIKE_TEST_POSTGRES_URL
#   scripts/start_postgres.sh stop         # stop it
#
# Installs Debian's postgresql package when no server binaries are found (needs
# root or sudo), initialises a cluster in $PRAISONLIKE_PG_DIR (default
# /tmp/praisonlike-postgres) owned by the postgres user when run as root, and
# serves it on 127.0.0.1:$PRAISONLIKE_PG_PORT (default 54329) with trust
# authentication for local connections only. Only the export line goes to
# stdout; progress goes to stderr.
set -euo pipefail

PORT="${PRAISONLIKE_PG_PORT:-54329}"
DATA_DIR="${PRAISONLIKE_PG_DIR:-/tmp/praisonlike-postgres}"
DATABASE="${PRAISONLIKE_PG_DATABASE:-praisonlike_test}"
SUPERUSER=postgres

log() { echo "start_postgres: $*" >&2; }

find_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [[ -n "$dir" && -x "$dir/pg_ctl" ]]; then
        echo "$dir"
    elif command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"
    fi
}

install_postgres() {
    log "PostgreSQL not found; installing Debian's postgresql package"
    local sudo=""
    [[ "$(id -u)" -eq 0 ]] || sudo="sudo"
    $sudo apt-get update >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y postgresql >&2
}

BINDIR="$(find_bindir)"
if [[ -z "$BINDIR" ]]; then
    install_postgres
    BINDIR="$(find_bindir)"
    [[ -n "$BINDIR" ]] || { log "no pg_ctl after installing postgresql"; exit 1; }
fi

# As root the cluster belongs to the postgres user (the server refuses to run as root).
as_owner() {
    if [[ "$(id -u)" -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

if [[ "${1:-start}" == "stop" ]]; then
    if [[ -f "$DATA_DIR/PG_VERSION" ]] && as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1; then
        as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" -m fast -w stop >&2
    else
        log "not running"
    fi
    exit 0
fi

if [[ ! -f "$DATA_DIR/PG_VERSION" ]]; then
    log "initialising a cluster in $DATA_DIR"
    mkdir -p "$DATA_DIR"
    [[ "$(id -u)" -ne 0 ]] || chown postgres:postgres "$DATA_DIR"
    chmod 700 "$DATA_DIR"
    as_owner "$BINDIR/initdb" -D "$DATA_DIR" -U "$SUPERUSER" --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >&2
fi

if ! as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1; then
    log "starting on 127.0.0.1:$PORT"
    as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" -l "$DATA_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DATA_DIR -c fsync=off" start >&2 \
        || { log "failed to start; see $DATA_DIR/server.log"; tail -n 20 "$DATA_DIR/server.log" >&2; exit 1; }
fi

for _ in $(seq 1 60); do
    "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$PORT" && break
    sleep 1
done
"$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$PORT" || { log "server not ready on port $PORT"; exit 1; }

psql_cmd=("$BINDIR/psql" -h 127.0.0.1 -p "$PORT" -U "$SUPERUSER" -d postgres -v ON_ERROR_STOP=1 -tAq)
if [[ "$("${psql_cmd[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != "1" ]]; then
    log "creating database $DATABASE"
    "${psql_cmd[@]}" -c "CREATE DATABASE \"$DATABASE\"" >&2
fi

echo "export PRAISONLIKE_TEST_POSTGRES_URL=postgresql://$SUPERUSER@127.0.0.1:$PORT/$DATABASE"
