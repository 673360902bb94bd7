#!/usr/bin/env bash
# Starts (or stops) throwaway PostgreSQL, PgBouncer, Redis and S3 (Ceph's RADOS Gateway) servers on
# loopback for the test suites, without systemd. Usage: services.sh start|stop. Prints the export
# lines on start; a second start with the servers up starts nothing.
#   services.sh rgw-stop | rgw-start   stop or start just the gateway (its cluster and objects stay):
#                                      the "storage down" tests, through SVC_TEST_RGW_CTL (printed on
#                                      start: this script with its state dir and port).
#   services.sh replica-stop | replica-start
#                                      stop (fast shutdown) or start just the replica (its data stays;
#                                      started, it streams from the primary again): the "replica down"
#                                      tests, through SVC_TEST_REPLICA_CTL (printed on start likewise).
# Ports: PORTICO_PG_PORT, PORTICO_PG_REPLICA_PORT (a streaming replica of that server),
# PORTICO_REDIS_PORT, PORTICO_PGBOUNCER_PORT, PORTICO_RGW_PORT (the gateway; its monitor listens on
# the next port); state under PORTICO_SERVICES_DIR.
set -euo pipefail
STATE=${PORTICO_SERVICES_DIR:-/tmp/portico-ci-services}
PG_PORT=${PORTICO_PG_PORT:-55432}
REPLICA_PORT=${PORTICO_PG_REPLICA_PORT:-55433}
REDIS_PORT=${PORTICO_REDIS_PORT:-56379}
BOUNCER_PORT=${PORTICO_PGBOUNCER_PORT:-56432}
RGW_PORT=${PORTICO_RGW_PORT:-57480}
MON_PORT=$((RGW_PORT + 1))
RGW_DIR=$STATE/rgw
S3_BUCKET=portico-test
S3_ACCESS_KEY=portico-test-access
S3_SECRET_KEY=portico-test-secret-key-not-for-production
S3_REGION=us-east-1
PGBOUNCER=/usr/sbin/pgbouncer
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
psql_() { as_postgres "$PG_BIN/psql" -h 127.0.0.1 -U postgres -tA "$@"; }
running() { as_postgres "$PG_BIN/pg_ctl" -D "$1" status >/dev/null 2>&1; }
# The settings both servers run with: throwaway data (no fsync), loopback only.
PG_OPTS="-c listen_addresses=127.0.0.1 -k /tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"

start() {
  mkdir -p "$STATE"
  if [ -z "$PG_BIN" ]; then echo "services.sh: PostgreSQL is not installed" >&2; exit 1; fi
  if [ ! -f "$STATE/pg/PG_VERSION" ]; then
    rm -rf "$STATE/pg"; mkdir -p "$STATE/pg"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$STATE/pg"
    as_postgres "$PG_BIN/initdb" -D "$STATE/pg" -U postgres -A trust --no-sync >"$STATE/initdb.log" 2>&1 \
      || { cat "$STATE/initdb.log" >&2; exit 1; }
  fi
  # The replica connects over loopback for replication (initdb writes this line; a state dir made
  # otherwise gets it).
  grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$STATE/pg/pg_hba.conf" \
    || echo 'host replication all 127.0.0.1/32 trust' >> "$STATE/pg/pg_hba.conf"
  # A primary left running from before without WAL for a replica is restarted with it.
  if running "$STATE/pg" && [ "$(psql_ -p "$PG_PORT" -c 'show wal_level' 2>/dev/null)" = minimal ]; then
    as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -m fast stop >/dev/null
  fi
  if ! running "$STATE/pg"; then
    as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -l "$STATE/pg/server.log" -w -t 60 \
      -o "$PG_OPTS -p $PG_PORT -c wal_level=replica -c max_wal_senders=10 -c max_replication_slots=10" start >/dev/null \
      || { cat "$STATE/pg/server.log" >&2; exit 1; }
  else
    psql_ -p "$PG_PORT" -c 'select pg_reload_conf()' >/dev/null
  fi
  psql_ -p "$PG_PORT" -c "select 1 from pg_database where datname='portico_test'" | grep -q 1 \
    || as_postgres "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres portico_test
  pg_replica
  if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
      --pidfile "$STATE/redis.pid" --logfile "$STATE/redis.log"
    for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  # PgBouncer (Debian's 1.18) in transaction mode in front of that server, as teams deploy it:
  # the PostgreSQL suites run through it a second time (npm run test:pgbouncer). The database
  # portico_test_replica is portico_test on the replica, through the same pooler. A pooler left
  # running from before reloads the file (SIGHUP).
  if [ -x "$PGBOUNCER" ]; then
    mkdir -p "$STATE/pgbouncer"
    printf '"postgres" ""\n' > "$STATE/pgbouncer/userlist.txt"
    # server_login_retry 1: a server that was down (the replica, stopped by a test) is tried again
    # after a second, not the default 15.
    cat > "$STATE/pgbouncer/pgbouncer.ini" <<INI
[databases]
portico_test_replica = host=127.0.0.1 port=$REPLICA_PORT dbname=portico_test
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
server_login_retry = 1
logfile = $STATE/pgbouncer/pgbouncer.log
pidfile = $STATE/pgbouncer/pgbouncer.pid
INI
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$STATE/pgbouncer"
    if (echo > "/dev/tcp/127.0.0.1/$BOUNCER_PORT") 2>/dev/null; then
      [ -f "$STATE/pgbouncer/pgbouncer.pid" ] && kill -HUP "$(cat "$STATE/pgbouncer/pgbouncer.pid")" 2>/dev/null || true
    else
      as_postgres "$PGBOUNCER" -d "$STATE/pgbouncer/pgbouncer.ini" >/dev/null \
        || { cat "$STATE/pgbouncer/pgbouncer.log" >&2; exit 1; }
      for _ in $(seq 1 50); do (echo > "/dev/tcp/127.0.0.1/$BOUNCER_PORT") 2>/dev/null && break; sleep 0.1; done
    fi
  fi
  rgw_cluster
  echo "export SVC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/portico_test"
  echo "export SVC_TEST_POSTGRES_REPLICA_URL=postgres://postgres@127.0.0.1:$REPLICA_PORT/portico_test"
  if [ -x "$PGBOUNCER" ]; then
    echo "export SVC_TEST_PGBOUNCER_URL=postgres://postgres@127.0.0.1:$BOUNCER_PORT/portico_test"
    echo "export SVC_TEST_PGBOUNCER_REPLICA_URL=postgres://postgres@127.0.0.1:$BOUNCER_PORT/portico_test_replica"
  fi
  echo "export SVC_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "export SVC_TEST_REDIS_SERVER=redis-server"
  echo "export SVC_TEST_S3_ENDPOINT=http://127.0.0.1:$RGW_PORT"
  echo "export SVC_TEST_S3_BUCKET=$S3_BUCKET"
  echo "export SVC_TEST_S3_ACCESS_KEY_ID=$S3_ACCESS_KEY"
  echo "export SVC_TEST_S3_SECRET_ACCESS_KEY=$S3_SECRET_KEY"
  echo "export SVC_TEST_S3_REGION=$S3_REGION"
  # The command a test runs with rgw-stop or rgw-start appended to stop or start this gateway.
  local ctl
  ctl="env PORTICO_SERVICES_DIR=$(printf %q "$(realpath "$STATE")") PORTICO_RGW_PORT=$RGW_PORT bash $(printf %q "$(realpath "$0")")"
  echo "export SVC_TEST_RGW_CTL=$(printf %q "$ctl")"
  # Likewise with replica-stop or replica-start appended, for the replica.
  ctl="env PORTICO_SERVICES_DIR=$(printf %q "$(realpath "$STATE")") PORTICO_PG_PORT=$PG_PORT PORTICO_PG_REPLICA_PORT=$REPLICA_PORT bash $(printf %q "$(realpath "$0")")"
  echo "export SVC_TEST_REPLICA_CTL=$(printf %q "$ctl")"
}

# A hot standby of that server, streaming its WAL through the replication slot replica1: copied
# once with pg_basebackup (-R writes standby.signal and primary_conninfo), then started on its own
# port. A test can pause its replay (pg_wal_replay_pause()) to make its lag deterministic.
pg_replica() {
  local dir=$STATE/pg-replica
  if [ ! -f "$dir/PG_VERSION" ]; then
    rm -rf "$dir"; mkdir -p "$dir"; chmod 700 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    # A slot left by a copy thrown away would make -C fail.
    psql_ -p "$PG_PORT" -c "select pg_drop_replication_slot('replica1') from pg_replication_slots where slot_name = 'replica1'" >/dev/null
    as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$dir" -R -X stream -C -S replica1 \
      >"$STATE/basebackup.log" 2>&1 || { cat "$STATE/basebackup.log" >&2; rm -rf "$dir"; exit 1; }
  fi
  if ! running "$dir"; then
    as_postgres "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 -o "$PG_OPTS -p $REPLICA_PORT" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
  fi
}

# The replica alone (its copy must exist: services.sh start made it); pg_ctl waits for it either way.
replica_stop() {
  [ -n "$PG_BIN" ] && running "$STATE/pg-replica" || return 0
  as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg-replica" -m fast -w -t 60 stop >/dev/null
}
replica_start() {
  [ -f "$STATE/pg-replica/PG_VERSION" ] || { echo "services.sh: no replica under $STATE (run start first)" >&2; exit 1; }
  pg_replica
}

# --- S3: Ceph's RADOS Gateway over a one-OSD cluster kept in memory (memstore), no auth between the
# daemons (cephx off), messenger v1 only (the gateway's v2 handshake fails without cephx). Every
# path is under $RGW_DIR; stop removes it.
ceph_() { ceph -c "$RGW_DIR/ceph.conf" --connect-timeout 15 "$@"; }
rgw_up() { curl -s -o /dev/null -m 2 "http://127.0.0.1:$RGW_PORT/"; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
rgw_fail() {
  echo "services.sh: the S3 gateway did not start: $1" >&2
  tail -n 15 "$RGW_DIR"/log/{setup,mon.a,osd.0,client.rgw.a}.log >&2 2>/dev/null || true
  exit 1
}

# A client of a monitor that has just started may send its first command before it has the
# monitor's map, and be refused ("wrong fsid"): each setup command is tried up to five times (each
# is idempotent: the OSD is created by its uuid).
retry() {
  for _ in 1 2 3 4; do "$@" && return 0; sleep 0.5; done
  "$@"
}

rgw_cluster() {
  if ! command -v radosgw >/dev/null 2>&1; then echo "services.sh: radosgw (Ceph) is not installed" >&2; exit 1; fi
  if alive "$RGW_DIR/run/mon.a.pid" && alive "$RGW_DIR/run/osd.0.pid"; then
    rgw_start
    return
  fi
  rgw_stop_all
  mkdir -p "$RGW_DIR"/{log,run,mon,osd/0,rgw,tmp}
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat > "$RGW_DIR/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$MON_PORT
public addr = 127.0.0.1
ms bind msgr2 = false
auth cluster required = none
auth service required = none
auth client required = none
keyring = $RGW_DIR/keyring
run dir = $RGW_DIR/run
pid file = $RGW_DIR/run/\$name.pid
admin socket = $RGW_DIR/run/\$name.asok
log file = $RGW_DIR/log/\$name.log
crash dir = $RGW_DIR/tmp
mon cluster log file = $RGW_DIR/log/cluster.log
mon data = $RGW_DIR/mon/\$id
mon data avail crit = 1
mon allow pool size one = true
mon allow pool delete = true
osd data = $RGW_DIR/osd/\$id
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush update on start = false
osd class update on start = false
osd crush chooseleaf type = 0
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $RGW_DIR/rgw
rgw thread pool size = 64
CONF
  : > "$RGW_DIR/keyring"
  monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$MON_PORT]" "$RGW_DIR/monmap" >"$RGW_DIR/log/setup.log" 2>&1 \
    || rgw_fail "monmaptool"
  ceph-mon -c "$RGW_DIR/ceph.conf" -i a --mkfs --monmap "$RGW_DIR/monmap" >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "ceph-mon --mkfs"
  ceph-mon -c "$RGW_DIR/ceph.conf" -i a >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "ceph-mon"
  local osd_uuid osd
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  osd=$(retry ceph_ osd create "$osd_uuid" 2>>"$RGW_DIR/log/setup.log") || rgw_fail "ceph osd create"
  [ "$osd" = 0 ] || rgw_fail "ceph osd create gave osd.$osd"
  ceph-osd -c "$RGW_DIR/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "ceph-osd --mkfs"
  retry ceph_ osd crush add osd.0 1.0 root=default >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "ceph osd crush add"
  ceph-osd -c "$RGW_DIR/ceph.conf" -i 0 >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "ceph-osd"
  rgw_start
  retry radosgw-admin -c "$RGW_DIR/ceph.conf" user create --uid portico --display-name Portico \
    --access-key "$S3_ACCESS_KEY" --secret-key "$S3_SECRET_KEY" >>"$RGW_DIR/log/setup.log" 2>&1 || rgw_fail "radosgw-admin user create"
  local code
  # curl 7.88 signs no payload hash, which the gateway requires: the empty body's, given.
  code=$(curl -s -o "$RGW_DIR/log/bucket.xml" -w '%{http_code}' -m 30 -X PUT \
    -H "x-amz-content-sha256: $(printf '' | sha256sum | cut -d' ' -f1)" \
    --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" "http://127.0.0.1:$RGW_PORT/$S3_BUCKET") || true
  [ "$code" = 200 ] || { cat "$RGW_DIR/log/bucket.xml" >&2; rgw_fail "creating the bucket $S3_BUCKET answered $code"; }
}

# The gateway alone (the cluster must be up): waits until it answers, 60 s at most.
rgw_start() {
  rgw_up && return
  alive "$RGW_DIR/run/client.rgw.a.pid" || radosgw -c "$RGW_DIR/ceph.conf" -n client.rgw.a >>"$RGW_DIR/log/setup.log" 2>&1 \
    || rgw_fail "radosgw"
  for _ in $(seq 1 300); do rgw_up && return; sleep 0.2; done
  rgw_fail "no answer on 127.0.0.1:$RGW_PORT after 60 s"
}

# Stops a daemon by its pid file (signal $2, default TERM) and waits until it is gone (10 s, then KILL).
kill_pidfile() {
  alive "$1" || return 0
  local pid
  pid=$(cat "$1")
  kill -"${2:-TERM}" "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

rgw_stop() { kill_pidfile "$RGW_DIR/run/client.rgw.a.pid"; }

# The whole cluster at once, its state thrown away (stopping gracefully takes 2 s a daemon).
rgw_stop_all() {
  kill_pidfile "$RGW_DIR/run/client.rgw.a.pid" KILL
  kill_pidfile "$RGW_DIR/run/osd.0.pid" KILL
  kill_pidfile "$RGW_DIR/run/mon.a.pid" KILL
  rm -rf "$RGW_DIR"
}

stop() {
  [ -f "$STATE/pgbouncer/pgbouncer.pid" ] && kill "$(cat "$STATE/pgbouncer/pgbouncer.pid")" 2>/dev/null || true
  [ -n "$PG_BIN" ] && [ -d "$STATE/pg-replica" ] && as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg-replica" -m fast stop >/dev/null 2>&1 || true
  [ -n "$PG_BIN" ] && [ -d "$STATE/pg" ] && as_postgres "$PG_BIN/pg_ctl" -D "$STATE/pg" -m fast stop >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  rgw_stop_all
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  rgw-start) rgw_start ;;
  rgw-stop) rgw_stop ;;
  replica-start) replica_start ;;
  replica-stop) replica_stop ;;
  *) echo "usage: $0 start|stop|rgw-start|rgw-stop|replica-start|replica-stop" >&2; exit 2 ;;
esac
