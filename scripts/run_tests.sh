#!/usr/bin/env bash
# make test: the test suite as CI runs it, PostgreSQL tests included where the machine allows.
#
#   scripts/run_tests.sh PYTHON [PYTEST_ARGS...]
#
# With PRAISONLIKE_TEST_POSTGRES_URL set (as .ci/run does), that server is used.
# Otherwise the throwaway server of scripts/start_postgres.sh is started (or
# reused) when PostgreSQL is installed, or can be installed (apt-get, as root
# or with password-less sudo); it is left running for the next run
# (scripts/start_postgres.sh stop ends it). When neither is possible the
# PostgreSQL tests are skipped, and the last line says so and why.
set -uo pipefail
cd "$(dirname "$0")/.."

python="${1:?usage: run_tests.sh PYTHON [PYTEST_ARGS...]}"
shift

postgres_installed() {
    compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || command -v pg_ctl >/dev/null 2>&1
}

postgres_installable() {
    command -v apt-get >/dev/null 2>&1 \
        && { [[ "$(id -u)" -eq 0 ]] || sudo -n true 2>/dev/null; }
}

skipped=""
postgres="the server of PRAISONLIKE_TEST_POSTGRES_URL"
if [[ -z "${PRAISONLIKE_TEST_POSTGRES_URL:-}" ]]; then
    if postgres_installed || postgres_installable; then
        if exports="$(scripts/start_postgres.sh)"; then
            eval "$exports"
            postgres="the throwaway server of scripts/start_postgres.sh (left running; 'scripts/start_postgres.sh stop' ends it)"
        else
            skipped="scripts/start_postgres.sh failed (its messages are above)"
        fi
    elif command -v apt-get >/dev/null 2>&1; then
        skipped="PostgreSQL is not installed and installing it needs a password; run: sudo apt-get install postgresql"
    else
        skipped="PostgreSQL is not installed (and there is no apt-get to install it); install it, or set PRAISONLIKE_TEST_POSTGRES_URL"
    fi
fi

PRAISONLIKE_ALLOW_MODEL_REQUESTS=0 "$python" -m pytest -q "$@"
status=$?
if [[ -n "$skipped" ]]; then
    echo "make test: the PostgreSQL tests were SKIPPED: $skipped"
else
    echo "make test: the PostgreSQL tests used $postgres"
fi
exit "$status"
