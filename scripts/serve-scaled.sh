#!/usr/bin/env bash
# scripts/serve-scaled.sh PORT: the scale-out of docs/operations.md on this one machine, behind one port.
#
#   nginx on 127.0.0.1:PORT (plain HTTP; pages and the lobby round-robin over the servers, a table's sockets
#   all to one server by its path, as deploy/nginx/jassweb.conf)
#     -> JASSWEB_SERVERS daphne processes (default 2; the ExecStart of deploy/systemd/jassweb-web@.service)
#     -> PostgreSQL (a fresh database on JASSWEB_TEST_POSTGRES's server) and Redis (a redis-server of its own)
#
# It prints one line starting with "ready:" once every server answers /healthz through nginx:
#
#   ready: http://127.0.0.1:PORT servers PID,PID nginx PID redis PID database NAME metrics TOKEN
#
# /metrics answers through the front with every server's series (PROMETHEUS_MULTIPROC_DIR, a folder of the set's,
# as deployed) to "Authorization: Bearer TOKEN" (the caller's JASSWEB_METRICS_TOKEN, else a fresh one).
#
# and on SIGTERM or SIGINT stops everything it started, drops its database and removes its folder.
# The servers run with the caller's environment on top (e.g. JASSWEB_LIMITS=0 JASSWEB_BOT_DELAY_MS=0 for a
# benchmark). JASSWEB_ASGI_APP serves another application (bench/live_tables.py runs its framework ceiling,
# bench.ceiling_app:application, behind the same front). JASSWEB_FRONT_WORKERS: nginx worker processes (1).
# JASSWEB_SERVER=uvicorn: uvicorn processes instead of daphne (bench/live_tables.py --server uvicorn).
# Needs nginx (scripts/test-prerequisites.sh installs it), PostgreSQL and redis-server; run make test or make run
# first for .venv.
set -euo pipefail

PORT="${1:?usage: scripts/serve-scaled.sh PORT}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
SERVERS="${JASSWEB_SERVERS:-2}"
APP="${JASSWEB_ASGI_APP:-jassweb.asgi:application}"
FRONT_WORKERS="${JASSWEB_FRONT_WORKERS:-1}"
POSTGRES_DSN="${JASSWEB_TEST_POSTGRES:-postgresql://postgres@127.0.0.1:5432/postgres}"

say() { echo "serve-scaled: [${SECONDS}s] $*" >&2; }
fail() { echo "serve-scaled: FAILED: $*" >&2; exit 1; }

NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || fail "nginx is missing (apt-get install nginx, or run scripts/test-prerequisites.sh)"
command -v redis-server >/dev/null 2>&1 || fail "redis-server is missing (apt-get install redis-server)"
[ -x "$PY" ] || fail "no $PY: run make run (or make test) first"
[[ "$SERVERS" =~ ^[1-9][0-9]*$ ]] || fail "JASSWEB_SERVERS must be a positive number, not '$SERVERS'"

WORK="$(mktemp -d -t jassweb-scaled-XXXXXX)"
chmod 711 "$WORK"  # nginx's workers (nobody) reach their temp folders below
LOGS="${JASSWEB_LOG_DIR:-$WORK/logs}"
mkdir -p "$LOGS" "$WORK/nginx"
SUFFIX="$(basename "$WORK" | tr -dc 'a-zA-Z0-9' | tr 'A-Z' 'a-z' | tail -c 7)"
DB_NAME="jassweb_scaled_$SUFFIX"
DB_MADE=0
PIDS=()

cleanup() {
  set +e
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[$i]}" 2>/dev/null; done
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    local waited=0
    while kill -0 "${PIDS[$i]}" 2>/dev/null && [ $waited -lt 150 ]; do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL "${PIDS[$i]}" 2>/dev/null
  done
  if [ "$DB_MADE" = 1 ]; then
    "$PY" - "$POSTGRES_DSN" "$DB_NAME" <<'EOF' 2>/dev/null
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as db:
    db.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
EOF
  fi
  rm -rf "$WORK"
  say "stopped ${#PIDS[@]} processes, dropped database $DB_NAME, removed $WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

free_ports() {  # free_ports N: N free loopback ports
  "$PY" -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
for s in socks: s.close()' "$1"
}

wait_for() {  # wait_for URL SECONDS PID: until the URL answers 200, while PID lives
  local deadline=$((SECONDS + $2))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ]; do
    kill -0 "$3" 2>/dev/null || fail "the process behind $1 ended: $(tail -n 20 "$LOGS"/*.log)"
    [ $SECONDS -lt $deadline ] || fail "$1 did not answer 200 within $2 s"
    sleep 0.2
  done
}

read -r -a PORTS < <(free_ports $((SERVERS + 1)))
REDIS_PORT="${PORTS[0]}"
WEB_PORTS=("${PORTS[@]:1}")

# -- Redis of its own, and a fresh PostgreSQL database --------------------------------------------
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >"$LOGS/redis.log" 2>&1 &
PIDS+=("$!")
REDIS_PID=$!
deadline=$((SECONDS + 10))
until (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "redis-server on port $REDIS_PORT did not start"
  sleep 0.05
done
"$PY" - "$POSTGRES_DSN" "$DB_NAME" <<'EOF' || fail "could not create database $DB_NAME on $POSTGRES_DSN"
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True, connect_timeout=5) as db:
    db.execute(f'CREATE DATABASE "{sys.argv[2]}"')
EOF
DB_MADE=1

export DATABASE_URL="${POSTGRES_DSN%/*}/$DB_NAME?connect_timeout=5"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export JASSWEB_CHANNEL_PREFIX="scaled-$SUFFIX"
export JASSWEB_BEHIND_PROXY=1  # the front sets X-Forwarded-For: limits count the visitor, not nginx
export PROMETHEUS_MULTIPROC_DIR="$WORK/metrics"
export JASSWEB_METRICS_TOKEN="${JASSWEB_METRICS_TOKEN:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
unset DJANGO_SETTINGS_MODULE
cd "$ROOT"
"$PY" manage.py migrate --noinput >"$LOGS/migrate.log" 2>&1 || fail "migrate: $(tail -n 5 "$LOGS/migrate.log")"
say "database $DB_NAME, Redis on $REDIS_PORT (prefix $JASSWEB_CHANNEL_PREFIX), work folder $WORK"

# -- the servers, as jassweb-web@.service runs them ------------------------------------------------
EXEC="$(sed -n 's/^ExecStart=//p' "$ROOT/deploy/systemd/jassweb-web@.service")"
[[ "$EXEC" == *"jassweb.asgi:application"* ]] || fail "deploy/systemd/jassweb-web@.service no longer has the line this script adapts"
if [ "${JASSWEB_SERVER:-daphne}" = uvicorn ]; then
  # For bench/live_tables.py --server uvicorn only: the transport measured beside daphne's (make test installs
  # uvicorn); its servers stop without jassweb/shutdown.py's clean stop. The flags are those of
  # tests/server_helpers.py's server_command, with the proxy headers of the front.
  EXEC="/srv/jassweb/.venv/bin/python -m uvicorn --host 127.0.0.1 --port %i --proxy-headers --forwarded-allow-ips 127.0.0.1 --no-access-log --log-level warning --ws websockets --ws-per-message-deflate false --lifespan off --backlog 4096 jassweb.asgi:application"
elif [ "${JASSWEB_SERVER:-daphne}" != daphne ]; then
  fail "JASSWEB_SERVER is daphne (the default) or uvicorn, not '$JASSWEB_SERVER'"
fi
SERVER_PIDS=()
for port in "${WEB_PORTS[@]}"; do
  read -r -a command <<<"$(echo "$EXEC" | sed -e "s#/srv/jassweb/.venv/#$ROOT/.venv/#g" -e "s#%i#$port#g" -e "s#jassweb.asgi:application#$APP#")"
  "${command[@]}" >"$LOGS/web-$port.log" 2>&1 &
  PIDS+=("$!")
  SERVER_PIDS+=("$!")
done

# -- nginx in front: one port; pages round-robin, a table's sockets all to one server ----------------
UPSTREAMS=""
for port in "${WEB_PORTS[@]}"; do UPSTREAMS+="    server 127.0.0.1:$port max_fails=3 fail_timeout=10s;"$'\n'; done
for temp in body proxy fastcgi uwsgi scgi; do mkdir -p "$WORK/nginx/$temp"; done
USER_LINE=""
if [ "$(id -u)" = 0 ]; then
  USER_LINE="user nobody nogroup;"
  chown nobody "$WORK"/nginx/{body,proxy,fastcgi,uwsgi,scgi}
fi
cat >"$WORK/nginx/nginx.conf" <<EOF
$USER_LINE
worker_processes $FRONT_WORKERS;
worker_rlimit_nofile 65536;
error_log $LOGS/nginx-error.log warn;
pid $WORK/nginx/nginx.pid;
events { worker_connections 30000; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    upstream jassweb {
$UPSTREAMS        keepalive 64;
    }
    upstream jassweb_tables {
        hash \$uri;
$UPSTREAMS    }
    map \$http_upgrade \$connection_upgrade {
        default upgrade;
        ''      '';
    }
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        client_max_body_size 3m;
        proxy_http_version 1.1;
        proxy_set_header Host \$http_host;
        proxy_set_header X-Forwarded-Host \$http_host;
        proxy_set_header X-Forwarded-Proto \$scheme;
        proxy_set_header X-Forwarded-For \$remote_addr;
        proxy_set_header Upgrade \$http_upgrade;
        proxy_set_header Connection \$connection_upgrade;
        location /ws/ {
            proxy_pass http://jassweb;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_buffering off;
        }
        location /ws/tables/ {
            proxy_pass http://jassweb_tables;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_buffering off;
        }
        location / {
            proxy_pass http://jassweb;
        }
    }
}
EOF
"$NGINX" -t -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" >"$LOGS/nginx-test.log" 2>&1 \
  || fail "nginx refused its configuration: $(cat "$LOGS/nginx-test.log")"
"$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g "daemon off;" >"$LOGS/nginx.log" 2>&1 &
PIDS+=("$!")
NGINX_PID=$!

for i in "${!WEB_PORTS[@]}"; do
  wait_for "http://127.0.0.1:${WEB_PORTS[$i]}/healthz" 120 "${SERVER_PIDS[$i]}"
done
wait_for "http://127.0.0.1:$PORT/healthz" 30 "$NGINX_PID"
IFS=,
echo "ready: http://127.0.0.1:$PORT servers ${SERVER_PIDS[*]} nginx $NGINX_PID redis $REDIS_PID database $DB_NAME metrics $JASSWEB_METRICS_TOKEN"
unset IFS
say "serving on http://127.0.0.1:$PORT with ${#SERVER_PIDS[@]} ${JASSWEB_SERVER:-daphne} processes; SIGTERM stops everything"

while true; do  # until a signal, or until a process of the set ends
  for pid in "${PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null || fail "process $pid ended: $(tail -n 20 "$LOGS"/*.log)"
  done
  sleep 1 &
  wait $! || true
done
