#!/usr/bin/env bash
# What `make test` needs besides Python packages: Debian's Chromium for the browser
# tests, nginx and openssl for the production smoke test, PostgreSQL's client tools for
# the restore drill, and the local Redis and PostgreSQL (started if they are installed
# but down).
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)  # the browser tests
command -v node >/dev/null 2>&1 || missing+=(nodejs)  # tests/test_static_files.py parses every module
# scripts/production-smoke.sh (tests/test_production_smoke.py): nginx in front, a throwaway certificate
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# scripts/restore-drill.sh (tests/test_restore_drill.py): pg_dump, pg_restore and psql
command -v pg_restore >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "make test: installing Debian's ${missing[*]} for the tests"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null 2>&1; then
    echo "make test: starting Redis on 127.0.0.1:6379"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  fi
fi

if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "make test: starting PostgreSQL on 127.0.0.1:5432"
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  fi
fi
