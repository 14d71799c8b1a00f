#!/usr/bin/env bash
# Runs the interop suite (Tests/Interop): the official Python Admin SDK (firebase-admin,
# from PyPI) drives `canopy serve` over REST and Server-Sent Events. Expects the canopy
# executable at .build/debug/canopy (or CANOPY_BIN); keeps a virtualenv in
# .build/interop-venv. Any failing test, or no test run at all, fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/interop-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check firebase-admin pytest

export CANOPY_BIN="${CANOPY_BIN:-$PWD/.build/debug/canopy}"
export PYTHONDONTWRITEBYTECODE=1
status=0
timeout 300 "$venv/bin/python" -m pytest -q Tests/Interop "$@" || status=$?
case $status in
    0) echo "interop: passed" ;;
    5) echo "interop: FAILED (pytest collected no tests)" >&2 ;;
    124) echo "interop: FAILED (timed out after 300 s)" >&2 ;;
    *) echo "interop: FAILED (pytest exit status $status)" >&2 ;;
esac
exit "$status"
