#!/usr/bin/env bash
# Starts (or stops) throwaway PostgreSQL and Redis servers on loopback for the test suites,
# without systemd. Usage: services.sh start|stop. Prints the export lines on start.
set -euo pipefail
STATE=${PORTICO_SERVICES_DIR:-/tmp/portico-ci-services}
PG_PORT=${PORTICO_PG_PORT:-55432}
REDIS_PORT=${PORTICO_REDIS_PORT:-56379}
BOUNCER_PORT=${PORTICO_PGBOUNCER_PORT:-56432}
PGBOUNCER=/usr/sbin/pgbouncer
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
  # PgBouncer (Debian's 1.18) in transaction mode in front of that server, as teams deploy it:
  # the PostgreSQL suites run through it a second time (npm run test:pgbouncer).
  if [ -x "$PGBOUNCER" ] && ! (echo > "/dev/tcp/127.0.0.1/$BOUNCER_PORT") 2>/dev/null; then
    mkdir -p "$STATE/pgbouncer"
    printf '"postgres" ""\n' > "$STATE/pgbouncer/userlist.txt"
    cat > "$STATE/pgbouncer/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PG_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $STATE/pgbouncer/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
logfile = $STATE/pgbouncer/pgbouncer.log
pidfile = $STATE/pgbouncer/pgbouncer.pid
INI
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$STATE/pgbouncer"
    as_postgres "$PGBOUNCER" -d "$STATE/pgbouncer/pgbouncer.ini" >/dev/null \
      || { cat "$STATE/pgbouncer/pgbouncer.log" >&2; exit 1; }
    for _ in $(seq 1 50); do (echo > "/dev/tcp/127.0.0.1/$BOUNCER_PORT") 2>/dev/null && break; sleep 0.1; done
  fi
  echo "export SVC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/portico_test"
  [ -x "$PGBOUNCER" ] && echo "export SVC_TEST_PGBOUNCER_URL=postgres://postgres@127.0.0.1:$BOUNCER_PORT/portico_test"
  echo "export SVC_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "export SVC_TEST_REDIS_SERVER=redis-server"
}

stop() {
  [ -f "$STATE/pgbouncer/pgbouncer.pid" ] && kill "$(cat "$STATE/pgbouncer/pgbouncer.pid")" 2>/dev/null || true
  [ -n "$PG_BIN" ] && [ -d "$STATE/pg" ] && as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -m fast stop >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
