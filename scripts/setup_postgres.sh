#!/usr/bin/env bash
# Installs Debian's PostgreSQL server binaries (initdb, pg_ctl) for the team-memory tests, which
# start a throwaway server of their own on 127.0.0.1 (tests/helpers/pgserver.py). Idempotent: when the
# binaries are there it only says so. No server is started or enabled here.
set -euo pipefail
found() { command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
if found; then
    echo "setup_postgres: PostgreSQL server binaries present"
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup_postgres: no PostgreSQL server binaries; install your system's postgresql package" >&2
    echo "setup_postgres: (the team tests skip with that reason until then)" >&2
    exit 0
fi
echo "setup_postgres: installing Debian's postgresql package (about 50 MB)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || true
apt-get install -y -qq postgresql >/dev/null
found && echo "setup_postgres: ready"
