#!/usr/bin/env bash
# A deploy without losing a move: the set-up once, then each server in turn, the next only once the new one is
# ready, then each bot worker in turn. Run as root on the machine of deploy/ (docs/operations.md "Deploying"):
#
#   cd /srv/jassweb && sudo -u jassweb git pull && sudo -u jassweb .venv/bin/pip install -r requirements.txt
#   scripts/rolling-restart.sh
#
# A server that gets SIGTERM stops accepting, hands its games to the other servers at once, sends its sockets
# to reconnect (the pages come back through nginx to a server that runs) and exits (jassweb/shutdown.py). With
# one server only, tables wait while it restarts: run two or more (jassweb.target starts two).
# JASSWEB_READY_TIMEOUT: seconds a new server may take to answer /healthz with 200 (default 120).
set -euo pipefail

TIMEOUT="${JASSWEB_READY_TIMEOUT:-120}"
say() { echo "rolling-restart: [${SECONDS}s] $*"; }
fail() { echo "rolling-restart: FAILED: $*" >&2; exit 1; }

ready() {  # ready PORT: until http://127.0.0.1:PORT/healthz answers 200 (its database, channel layer, bot workers)
  local deadline=$((SECONDS + TIMEOUT))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz")" = 200 ]; do
    [ $SECONDS -lt $deadline ] || fail "the server on port $1 is not ready after $TIMEOUT s: journalctl -u jassweb-web@$1"
    sleep 0.5
  done
}

say "set-up: migrations, static files, search kernels (the servers keep serving)"
systemctl restart jassweb-setup.service || fail "jassweb-setup failed: journalctl -u jassweb-setup"

mapfile -t servers < <(systemctl list-units --plain --no-legend --state=active 'jassweb-web@*.service' | awk '{print $1}')
[ ${#servers[@]} -gt 0 ] || fail "no jassweb-web@ server is running"
[ ${#servers[@]} -gt 1 ] || say "only ${servers[0]} runs: its tables wait while it restarts"
for unit in "${servers[@]}"; do
  port="${unit#jassweb-web@}"
  port="${port%.service}"
  say "restarting $unit"
  systemctl restart "$unit"
  ready "$port"
  say "$unit is ready"
done

mapfile -t workers < <(systemctl list-units --plain --no-legend --state=active 'jassweb-worker@*.service' | awk '{print $1}')
for unit in "${workers[@]}"; do
  # A decision in flight is lost with its worker; the server lets the rule bot play that one move.
  say "restarting $unit"
  systemctl restart "$unit"
done
say "done: ${#servers[@]} servers and ${#workers[@]} bot workers restarted"
