#!/usr/bin/env bash
# Starts (or stops) throwaway PostgreSQL and Redis servers on loopback for the test suites,
# without systemd. Usage: services.sh start|stop. Prints the export lines on start.
set -euo pipefail
STATE=${PORTICO_SERVICES_DIR:-/tmp/portico-ci-services}
PG_PORT=${PORTICO_PG_PORT:-55432}
REDIS_PORT=${PORTICO_REDIS_PORT:-56379}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  mkdir -p "$STATE"
  if [ -z "$PG_BIN" ]; then echo "services.sh: PostgreSQL is not installed" >&2; exit 1; fi
  if [ ! -f "$STATE/pg/PG_VERSION" ]; then
    rm -rf "$STATE/pg"; mkdir -p "$STATE/pg"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$STATE/pg"
    as_postgres "$PG_BIN/initdb" -D "$STATE/pg" -U postgres -A trust --no-sync >"$STATE/initdb.log" 2>&1 \
      || { cat "$STATE/initdb.log" >&2; exit 1; }
  fi
  if ! as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" status >/dev/null 2>&1; then
    as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -l "$STATE/pg/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k /tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null \
      || { cat "$STATE/pg/server.log" >&2; exit 1; }
  fi
  as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "select 1 from pg_database where datname='portico_test'" | grep -q 1 \
    || as_postgres "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres portico_test
  if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
      --pidfile "$STATE/redis.pid" --logfile "$STATE/redis.log"
    for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  echo "export SVC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/portico_test"
  echo "export SVC_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "export SVC_TEST_REDIS_SERVER=redis-server"
}

stop() {
  [ -n "$PG_BIN" ] && [ -d "$STATE/pg" ] && as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -m fast stop >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
