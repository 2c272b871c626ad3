#!/usr/bin/env bash
# Make sure the PostgreSQL *server* binaries (initdb, pg_ctl, postgres) are installed, for the tests and
# benchmarks that start a throwaway cluster of their own (tests/pgserver.py), and PgBouncer, which the
# shared index's tests put in front of one in transaction mode (tests/pooler.py). Nothing is started here.
# On a machine without them, as root with apt-get (Debian), installs Debian's `postgresql` package with
# its automatic "main" cluster switched off, so no system server is created or left running, and Debian's
# `pgbouncer` (its service is not started in a container without systemd; where it is, it listens on
# 6432, which the tests do not use).
set -euo pipefail

have_server() {
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; then
    return 0
  fi
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

have_bouncer() {
  command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]
}

if have_server && have_bouncer; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: no PostgreSQL server binaries or no PgBouncer, and no way to install them here" >&2
  echo "  (install Debian's 'postgresql' and 'pgbouncer' packages, or your platform's)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive UCF_FORCE_CONFFOLD=1
if ! have_bouncer; then
  echo "ensure-postgres: installing Debian's pgbouncer package ..." >&2
  apt-get update -qq >&2
  apt-get install -y -qq -o Dpkg::Options::=--force-confold --no-install-recommends pgbouncer >&2
  have_bouncer || { echo "ensure-postgres: installed, but pgbouncer is still not found" >&2; exit 1; }
fi
if have_server; then
  exit 0
fi
echo "ensure-postgres: installing Debian's postgresql package (no cluster is created) ..." >&2
mkdir -p /etc/postgresql-common
conf=/etc/postgresql-common/createcluster.conf
if [ ! -e "$conf" ]; then
  echo "create_main_cluster = false" > "$conf"
fi
apt-get update -qq >&2
apt-get install -y -qq -o Dpkg::Options::=--force-confold --no-install-recommends postgresql >&2
have_server || { echo "ensure-postgres: installed, but initdb is still not found" >&2; exit 1; }
