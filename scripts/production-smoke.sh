#!/usr/bin/env bash
# The production topology of docs/operations.md "Deploying", brought up on this machine's loopback and played through:
#
#   nginx (deploy/nginx/jassweb.conf: TLS with a throwaway self-signed certificate, websocket upgrade)
#     -> two daphne processes (the ExecStart of deploy/systemd/jassweb-web@.service)
#     -> PostgreSQL (a fresh database) and Redis (a redis-server of this run's own, on a free port)
#   two bot workers (the ExecStart of deploy/systemd/jassweb-worker@.service), JASSWEB_THINKERS=channels,
#   the environment of deploy/jassweb.env.example, the set-up of deploy/systemd/jassweb-setup.service.
#
# Then scripts/smoke_play.py plays a Fair game of two people and two bots through nginx (both people's
# websockets on the one daphne the table's path hashes to), the record passes `importgame`'s checks, /healthz answers 200 on each
# server and through nginx, /metrics (with its token, through nginx and on each server) counts every move once
# over all processes, a forged X-Forwarded-For through nginx makes no guest, sign-up, log-in, table or import past
# the limits;
# then the chaos step (issue 28): a second game goes on while Redis restarts and the server that drives it is
# killed. Everything is stopped and removed again. Exit 0 when all of it held.
# Needs nginx and openssl (scripts/test-prerequisites.sh installs them), PostgreSQL and Redis on loopback.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
DEPLOY="$ROOT/deploy"
POSTGRES_DSN="${JASSWEB_TEST_POSTGRES:-postgresql://postgres@127.0.0.1:5432/postgres}"
ROUNDS="${SMOKE_ROUNDS:-4}"

say() { echo "smoke: [${SECONDS}s] $*"; }
fail() { echo "smoke: FAILED: $*" >&2; exit 1; }

NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || fail "nginx is missing (apt-get install nginx, or run scripts/test-prerequisites.sh)"
command -v openssl >/dev/null 2>&1 || fail "openssl is missing (apt-get install openssl)"
[ -x "$PY" ] || fail "no $PY: run make test (or make run) first"

WORK="$(mktemp -d -t jassweb-smoke-XXXXXX)"
chmod 711 "$WORK"  # nginx's workers (nobody) reach their temp folders below
mkdir -p "$WORK/logs" "$WORK/nginx"
SUFFIX="$(basename "$WORK" | tr -dc 'a-zA-Z0-9' | tr 'A-Z' 'a-z' | tail -c 7)"
DB_NAME="jassweb_smoke_$SUFFIX"
PIDS=()
NAMES=()
OK=0

cleanup() {
  set +e
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill -TERM "${PIDS[$i]}" 2>/dev/null
  done
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    local waited=0
    while kill -0 "${PIDS[$i]}" 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL "${PIDS[$i]}" 2>/dev/null
  done
  if [ "$OK" != 1 ]; then
    for log in "$WORK"/logs/*.log "$WORK"/nginx/error.log; do
      [ -s "$log" ] && { echo "--- last lines of $(basename "$log")"; tail -n 25 "$log"; }
    done
  fi
  "$PY" - "$POSTGRES_DSN" "$DB_NAME" <<'EOF' 2>/dev/null
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as db:
    db.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
EOF
  rm -rf "$WORK"
  say "stopped ${#PIDS[@]} processes, dropped database $DB_NAME, removed $WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() {  # start NAME COMMAND...: run a process in the background with its log in $WORK/logs
  local name="$1"; shift
  "$@" >"$WORK/logs/$name.log" 2>&1 &
  PIDS+=("$!")
  NAMES+=("$name")
}

unit_command() {  # unit_command UNIT INSTANCE: the unit's ExecStart lines, for this checkout
  sed -n 's/^ExecStart=//p' "$DEPLOY/systemd/$1" | sed -e "s#/srv/jassweb/.venv/#$ROOT/.venv/#g" -e "s#%i#$2#g"
}

wait_for() {  # wait_for URL [SECONDS] [CURL ARGS...]: until it answers 200
  local url="$1" seconds="${2:-60}"; shift 2 || shift $#
  local deadline=$((SECONDS + seconds))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$@" "$url")" = 200 ]; do
    [ $SECONDS -lt $deadline ] || fail "$url did not answer 200 within $seconds s"
    sleep 0.3
  done
}

# -- Redis: one of this run's own on a free port (the chaos step restarts it; the shared one is left alone) --
REDIS_PORT=""
REDIS_INDEX=""
start_redis() {  # start_redis: start this run's redis-server (again, on the same port); return once it answers
  [ -n "$REDIS_PORT" ] || REDIS_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >>"$WORK/logs/redis.log" 2>&1 &
  if [ -z "$REDIS_INDEX" ]; then
    PIDS+=("$!")
    NAMES+=("redis")
    REDIS_INDEX=$((${#PIDS[@]} - 1))
  else
    PIDS[REDIS_INDEX]=$!
  fi
  local deadline=$((SECONDS + 10))
  until (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "redis-server on port $REDIS_PORT did not start"
    sleep 0.05
  done
}
command -v redis-server >/dev/null 2>&1 || fail "redis-server is missing (apt-get install redis-server)"
start_redis
REDIS="redis://127.0.0.1:$REDIS_PORT/0"

read -r WEB1 WEB2 HTTPS HTTP < <("$PY" -c '
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
for s in socks: s.close()')

# -- the environment: deploy/jassweb.env.example, with this machine's values -----------------------
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  export "${line?}"
done <"$DEPLOY/jassweb.env.example"
unset NUMBA_CACHE_DIR  # the checkout's kernels, compiled by make test
export DJANGO_SECRET_KEY="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')"
export JASSWEB_ALLOWED_HOSTS="127.0.0.1,localhost"
export JASSWEB_CSRF_TRUSTED_ORIGINS="https://127.0.0.1:$HTTPS"
export DATABASE_URL="${POSTGRES_DSN%/*}/$DB_NAME?connect_timeout=5&pool_max_size=10"
export REDIS_URL="$REDIS"
export JASSWEB_CHANNEL_PREFIX="smoke-$SUFFIX"
export JASSWEB_STATIC_ROOT="$WORK/staticfiles"
export JASSWEB_BOT_DELAY_MS=0
export PROMETHEUS_MULTIPROC_DIR="$WORK/metrics"  # the units' /run/jassweb-metrics
export JASSWEB_METRICS_TOKEN="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(24))')"
unset DJANGO_SETTINGS_MODULE
# Low sign-up and log-in limits (each one hashes a password), so forged_forwarded_for reaches them quickly.
export JASSWEB_LIMIT_SIGNUP_ADDRESS=3/h JASSWEB_LIMIT_LOGIN_ADDRESS=4/15m
# ...and low table and import limits per address (the smoke games come from 127.0.0.1, the forger from 127.0.0.2).
export JASSWEB_LIMIT_TABLE_ADDRESS=6/h JASSWEB_LIMIT_IMPORT_ADDRESS=4/h
cd "$ROOT"

"$PY" - "$POSTGRES_DSN" "$DB_NAME" <<'EOF'
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True, connect_timeout=5) as db:
    db.execute(f'CREATE DATABASE "{sys.argv[2]}"')
EOF
say "database $DB_NAME, Redis prefix $JASSWEB_CHANNEL_PREFIX, work folder $WORK"

# -- set-up: what jassweb-setup.service runs --------------------------------------------------------
while IFS= read -r command; do
  say "set-up: ${command#"$ROOT/"}"
  eval "$command" >>"$WORK/logs/setup.log" 2>&1 || fail "set-up step failed: $command"
done < <(unit_command jassweb-setup.service "")
"$PY" manage.py check --deploy --fail-level WARNING >>"$WORK/logs/setup.log" 2>&1 \
  || fail "manage.py check --deploy is not clean: $(tail -n 5 "$WORK/logs/setup.log")"
say "manage.py check --deploy: no issues"

# -- two bot workers and two web servers, as their units run them -----------------------------------
for worker in 1 2; do
  read -r -a command < <(unit_command "jassweb-worker@.service" "$worker")
  start "worker-$worker" nice -n 10 "${command[@]}"
done
for port in "$WEB1" "$WEB2"; do
  read -r -a command < <(unit_command "jassweb-web@.service" "$port")
  start "web-$port" "${command[@]}"
done
for port in "$WEB1" "$WEB2"; do
  wait_for "http://127.0.0.1:$port/healthz" 90
done
say "daphne on 127.0.0.1:$WEB1 and 127.0.0.1:$WEB2, bot workers ${PIDS[0]} and ${PIDS[1]}: /healthz 200 on each"

# -- nginx with the site file, on loopback ports and a throwaway certificate ------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$WORK/nginx/key.pem" -out "$WORK/nginx/cert.pem" >"$WORK/logs/openssl.log" 2>&1
sed -e "s#server 127.0.0.1:8001 #server 127.0.0.1:$WEB1 #" \
    -e "s#server 127.0.0.1:8002 #server 127.0.0.1:$WEB2 #" \
    -e "s#listen 80;#listen 127.0.0.1:$HTTP;#" \
    -e "s#listen 443 ssl http2;#listen 127.0.0.1:$HTTPS ssl http2;#" \
    -e "/listen \[::\]/d" \
    -e "s#server_name jass.example.org;#server_name 127.0.0.1 localhost;#" \
    -e "s#/etc/letsencrypt/live/jass.example.org/fullchain.pem#$WORK/nginx/cert.pem#" \
    -e "s#/etc/letsencrypt/live/jass.example.org/privkey.pem#$WORK/nginx/key.pem#" \
    -e "s#shared:jassweb_tls#shared:jassweb_smoke_tls#" \
    "$DEPLOY/nginx/jassweb.conf" >"$WORK/nginx/jassweb.conf"
grep -q "$WEB1" "$WORK/nginx/jassweb.conf" && grep -q "127.0.0.1:$HTTPS ssl" "$WORK/nginx/jassweb.conf" \
  || fail "deploy/nginx/jassweb.conf no longer has the lines this script adapts"
for temp in body proxy fastcgi uwsgi scgi; do mkdir -p "$WORK/nginx/$temp"; done
USER_LINE=""
if [ "$(id -u)" = 0 ]; then
  USER_LINE="user nobody nogroup;"
  chown nobody "$WORK"/nginx/{body,proxy,fastcgi,uwsgi,scgi}
fi
cat >"$WORK/nginx/nginx.conf" <<EOF
$USER_LINE
worker_processes 1;
error_log $WORK/nginx/error.log warn;
pid $WORK/nginx/nginx.pid;
events { worker_connections 512; }
http {
    include /etc/nginx/mime.types;
    access_log $WORK/nginx/access.log;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    include $WORK/nginx/jassweb.conf;
}
EOF
"$NGINX" -t -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >"$WORK/logs/nginx-t.log" 2>&1 \
  || fail "nginx -t: $(cat "$WORK/logs/nginx-t.log")"
start nginx "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g "daemon off;"
wait_for "https://127.0.0.1:$HTTPS/healthz" 30 --cacert "$WORK/nginx/cert.pem"
say "nginx on https://127.0.0.1:$HTTPS (http://127.0.0.1:$HTTP redirects) -> daphne :$WEB1, :$WEB2"

# -- chaos (issue 28): Redis restarts mid-game and a server is killed; the game still finishes -------------
health_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz"; }

chaos_moves() {  # the moves of the chaos game its player has seen so far (-1: none yet)
  local game=0 seq=-1
  [ -f "$WORK/chaos.progress" ] && read -r game seq <"$WORK/chaos.progress"
  echo "${seq:--1}"
}

chaos_wait() {  # chaos_wait SECONDS WHAT COMMAND...: until COMMAND succeeds, while the game's player runs
  local seconds="$1" what="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    kill -0 "$CHAOS_PLAYER" 2>/dev/null || fail "chaos: the player stopped waiting for $what: $(tail -n 3 "$WORK/logs/chaos.log")"
    [ $SECONDS -lt $deadline ] || fail "chaos: no $what within $seconds s"
    sleep 0.2
  done
}

both_servers() { [ "$(health_code "$WEB1")" = "$1" ] && [ "$(health_code "$WEB2")" = "$1" ]; }

moves_at_least() { [ "$(chaos_moves)" -ge "$1" ]; }

chaos_redis_restart_and_server_kill() {
  # Anna and Beat (on the server the table hashes to) play with two bots through nginx; mid-game Redis stops,
  # both servers' /healthz say so and moves are made meanwhile; Redis starts again, empty: both servers are
  # healthy again, the bot workers run and the game plays on. Then the server that drives the game is killed
  # (SIGKILL) and started again, as systemd would; the other takes the game over. The game must finish.
  say "chaos: a game with Redis restarted and a server killed mid-game"
  "$PY" scripts/smoke_chaos.py --base "https://127.0.0.1:$HTTPS" --ca "$WORK/nginx/cert.pem" \
    --database "${POSTGRES_DSN%/*}/$DB_NAME" --progress "$WORK/chaos.progress" >"$WORK/logs/chaos.log" 2>&1 &
  CHAOS_PLAYER=$!
  chaos_wait 60 "8 moves" moves_at_least 8
  kill -TERM "${PIDS[REDIS_INDEX]}"
  wait "${PIDS[REDIS_INDEX]}" 2>/dev/null || true
  local stopped down
  stopped="$(chaos_moves)"
  chaos_wait 20 "503 from /healthz on both servers" both_servers 503
  chaos_wait 30 "move while Redis is down" moves_at_least $((stopped + 1))
  down=$SECONDS
  start_redis
  chaos_wait 30 "200 from /healthz on both servers after Redis returned" both_servers 200
  say "chaos: Redis stopped at move $stopped, the game went on to $(chaos_moves) meanwhile; both servers healthy" \
    "$((SECONDS - down)) s after it returned"
  chaos_wait 60 "8 more moves after Redis returned" moves_at_least $(($(chaos_moves) + 8))
  local game driver index port killed
  read -r game _ <"$WORK/chaos.progress"
  driver="$("$PY" -c '
import sys, psycopg
with psycopg.connect(sys.argv[1]) as db:
    sql = "SELECT w.pid FROM games_game g JOIN games_worker w ON w.id = g.driver WHERE g.id = %s"
    print(db.execute(sql, [int(sys.argv[2])]).fetchone()[0])' "${POSTGRES_DSN%/*}/$DB_NAME" "$game")"
  for index in "${!PIDS[@]}"; do
    [ "${PIDS[$index]}" = "$driver" ] && break
  done
  [ "${PIDS[$index]}" = "$driver" ] || fail "chaos: the game's driver (pid $driver) is none of the servers"
  kill -KILL "$driver"
  wait "$driver" 2>/dev/null || true
  port="${NAMES[$index]#web-}"
  killed=$SECONDS
  say "chaos: killed the server that drives the game (pid $driver, :$port) at move $(chaos_moves)"
  sleep 2  # systemd's RestartSec, then its restart
  read -r -a command < <(unit_command "jassweb-web@.service" "$port")
  "${command[@]}" >>"$WORK/logs/web-$port.log" 2>&1 &
  PIDS[index]=$!
  wait "$CHAOS_PLAYER" || fail "chaos: the game did not finish: $(tail -n 3 "$WORK/logs/chaos.log")"
  say "$(tail -n 1 "$WORK/logs/chaos.log") ($((SECONDS - killed)) s after the kill)"
  wait_for "http://127.0.0.1:$port/healthz" 60
  for index in "${!PIDS[@]}"; do
    kill -0 "${PIDS[$index]}" 2>/dev/null || fail "chaos: ${NAMES[$index]} is no longer running"
  done
}

# -- a game through nginx ---------------------------------------------------------------------------
say "playing a Fair game of $ROUNDS rounds: Anna and Beat (websockets through nginx), MCTS (fast) and Rule-based bots"
"$PY" scripts/smoke_play.py --base "https://127.0.0.1:$HTTPS" --plain "http://127.0.0.1:$HTTP" \
  --ca "$WORK/nginx/cert.pem" --database "${POSTGRES_DSN%/*}/$DB_NAME" --record "$WORK/record.json" \
  --rounds "$ROUNDS" | tee "$WORK/played.json"
"$PY" scripts/smoke_metrics.py "https://127.0.0.1:$HTTPS" "$WORK/nginx/cert.pem" "${POSTGRES_DSN%/*}/$DB_NAME" \
  "http://127.0.0.1:$WEB1" "http://127.0.0.1:$WEB2" || fail "/metrics"
imported="$("$PY" manage.py importgame "$WORK/record.json" --private --name "Smoke record" 2>&1)" \
  || fail "the game's record does not pass importgame's checks: $imported"
say "the record passes importgame's checks: $imported"

# -- a forged X-Forwarded-For through nginx: no guest, sign-up, log-in, table or import past the limits ----
forged_forwarded_for() {
  # From 127.0.0.2 (nginx sees that address; the game's 127.0.0.1 keeps its counts), each attempt a new session
  # with another forged header, up to each limit and past it; 127.0.0.3 still makes a guest.
  "$PY" scripts/smoke_forged_address.py --base "https://127.0.0.1:$HTTPS" --ca "$WORK/nginx/cert.pem" \
    --database "${POSTGRES_DSN%/*}/$DB_NAME" --source 127.0.0.2 --other 127.0.0.3 || fail "forged X-Forwarded-For"
}
forged_forwarded_for

# -- health, each server directly and through nginx -------------------------------------------------
for url in "http://127.0.0.1:$WEB1/healthz" "http://127.0.0.1:$WEB2/healthz"; do
  body="$(curl -s -w ' %{http_code}' "$url")"
  [ "${body##* }" = 200 ] || fail "$url: $body"
  say "$url: ${body% *}"
done
curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/nginx/cert.pem" "https://127.0.0.1:$HTTPS/healthz" | grep -q 200 \
  || fail "/healthz through nginx"
# -- the servers' logs: one JSON object a line, the game's events, no error --------------------------
"$PY" scripts/smoke_logs.py "$WORK"/logs/web-*.log "$WORK"/logs/worker-*.log || fail "the servers' logs"
chaos_redis_restart_and_server_kill
for i in "${!PIDS[@]}"; do
  kill -0 "${PIDS[$i]}" 2>/dev/null || fail "${NAMES[$i]} is no longer running"
done
OK=1
say "passed"
