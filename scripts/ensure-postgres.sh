#!/usr/bin/env bash
# Make sure the PostgreSQL *server* binaries (initdb, pg_ctl, postgres) are installed, for the tests and
# benchmarks that start a throwaway cluster of their own (tests/pgserver.py). Nothing is started here.
# On a machine without them, as root with apt-get (Debian), installs Debian's `postgresql` package with
# its automatic "main" cluster switched off, so no system server is created or left running.
set -euo pipefail

have_server() {
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; then
    return 0
  fi
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

if have_server; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: no PostgreSQL server binaries, and no way to install them here" >&2
  echo "  (install Debian's 'postgresql' package, or your platform's PostgreSQL server)" >&2
  exit 1
fi
echo "ensure-postgres: installing Debian's postgresql package (no cluster is created) ..." >&2
mkdir -p /etc/postgresql-common
conf=/etc/postgresql-common/createcluster.conf
if [ ! -e "$conf" ]; then
  echo "create_main_cluster = false" > "$conf"
fi
export DEBIAN_FRONTEND=noninteractive UCF_FORCE_CONFFOLD=1
apt-get update -qq >&2
apt-get install -y -qq -o Dpkg::Options::=--force-confold --no-install-recommends postgresql >&2
have_server || { echo "ensure-postgres: installed, but initdb is still not found" >&2; exit 1; }
