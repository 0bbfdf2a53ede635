#!/usr/bin/env bash
# Create the virtualenv make installs into, or say the one command that fixes why it cannot.
#
#   scripts/make_venv.sh PYTHON VENV
#
# Needs Python 3.10+ with the venv module and ensurepip: Debian and Ubuntu ship
# those in python3.X-venv, apart from python3. A venv that a failed attempt
# left without pip is made again; a working one is kept.
set -euo pipefail

python="${1:?usage: make_venv.sh PYTHON VENV}"
venv="${2:?usage: make_venv.sh PYTHON VENV}"

fail() {
    echo "make: $*" >&2
    exit 1
}

as_root() {
    [[ "$(id -u)" -eq 0 ]] || echo "sudo "
}

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    exit 0
fi
command -v "$python" >/dev/null 2>&1 \
    || fail "no '$python' found: install Python 3.10+, or name one with make PYTHON=/path/to/python3"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || fail "praisonlike needs Python 3.10+, and $python is $("$python" --version 2>&1): run make PYTHON=python3.X with a newer one"
version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

rm -rf "$venv"
if ! output="$("$python" -m venv "$venv" 2>&1)"; then
    rm -rf "$venv"
    echo "$output" >&2
    if ! "$python" -m ensurepip --version >/dev/null 2>&1 || [[ "$output" == *ensurepip* ]]; then
        if command -v apt-get >/dev/null 2>&1; then
            fail "$python has no ensurepip (Debian and Ubuntu ship it apart); fix: $(as_root)apt-get install python${version}-venv"
        fi
        fail "$python has no ensurepip: install your system's venv package for Python $version (python${version}-venv, python3-venv), or use a python.org or pyenv build"
    fi
    fail "'$python -m venv $venv' failed (above)"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
