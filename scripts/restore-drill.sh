#!/usr/bin/env bash
# The restore drill: restore the latest backup into a fresh database and check that it holds.
#
#   scripts/restore-drill.sh [DUMP_OR_FOLDER]
#
# DUMP_OR_FOLDER: a dump of `manage.py backup` (pg_dump, custom format), or the folder of them (the newest is
# taken); default $JASSWEB_BACKUP_DIR, else /var/lib/jassweb/backups (deploy/systemd/jassweb-backup.service).
# JASSWEB_DRILL_ADMIN_URL: a PostgreSQL URL of a role that may create databases (default: the local server as
# postgres). The drill
#   1. creates the database jassweb_drill_<time> and restores the dump into it (pg_restore, no owner, no grants);
#   2. migrates it to this checkout's schema (a dump of an older release must still come up);
#   3. runs `manage.py checkrestore` on it: every finished game's record verifies and replays to its stored
#      result (games/records.py: export, then check_record), and rerate recomputes every rating to the numbers
#      stored;
#   4. drops the database again (JASSWEB_DRILL_KEEP=1 keeps it, and says so).
# Exit 0 when all of it held; the production database is never touched.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${JASSWEB_PYTHON:-$ROOT/.venv/bin/python}"
ADMIN_URL="${JASSWEB_DRILL_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
SOURCE="${1:-${JASSWEB_BACKUP_DIR:-/var/lib/jassweb/backups}}"

say() { echo "drill: [${SECONDS}s] $*"; }
fail() { echo "drill: FAILED: $*" >&2; exit 1; }

if [ -d "$SOURCE" ]; then
  DUMP="$(find "$SOURCE" -maxdepth 1 -name 'jassweb-*.dump' -type f | sort | tail -n 1)"
  [ -n "$DUMP" ] || fail "no jassweb-*.dump in $SOURCE"
else
  DUMP="$SOURCE"
  [ -f "$DUMP" ] || fail "no dump at $DUMP"
fi
pg_restore --list "$DUMP" >/dev/null 2>&1 || fail "$DUMP is not a pg_dump archive in the custom format"

NAME="jassweb_drill_$(date -u +%Y%m%d%H%M%S)_$$"
DRILL_URL="${ADMIN_URL%/*}/$NAME"
psql_admin() { psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -q -X -c "$1" >/dev/null; }

cleanup() {
  if [ "${JASSWEB_DRILL_KEEP:-0}" = 1 ]; then
    say "kept the database $NAME ($DRILL_URL)"
  else
    psql_admin "DROP DATABASE IF EXISTS \"$NAME\" WITH (FORCE)" || echo "drill: could not drop $NAME" >&2
  fi
}

psql_admin "CREATE DATABASE \"$NAME\"" || fail "could not create the database $NAME with $ADMIN_URL"
trap cleanup EXIT
say "restoring $DUMP ($(du -h "$DUMP" | cut -f1)) into the fresh database $NAME"
pg_restore --no-owner --no-privileges --exit-on-error --dbname="$DRILL_URL" "$DUMP" \
  || fail "pg_restore of $DUMP failed"

# Only the database: no channel layer, cache or metrics of a running deployment.
export DATABASE_URL="$DRILL_URL"
unset REDIS_URL JASSWEB_CACHE_URL PROMETHEUS_MULTIPROC_DIR DJANGO_SETTINGS_MODULE
cd "$ROOT"
"$PY" manage.py migrate --noinput >/dev/null || fail "migrating the restored database failed"
say "restored and migrated; checking every finished game and the ratings"
"$PY" manage.py checkrestore || fail "the restored database does not hold (above)"
say "passed: $DUMP restores and holds"
