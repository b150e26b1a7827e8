#!/usr/bin/env bash
# Issue 29: a local Citus cluster for the rehearsal (docs/deploy.md "Citus"). Never run by CI.
#
# Needs Citus installed into the PostgreSQL 15 of this machine (built from its public source, outside
# the repo: `./configure PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config --without-libcurl && make &&
# make install`). Starts a coordinator and two workers as separate clusters under $CITUS_DIR (default
# /tmp/citus-rehearsal), owned by the postgres user, trust auth on 127.0.0.1, and joins them.
#
#   scripts/citus-rehearsal.sh up      # initdb (first time), start, CREATE EXTENSION citus, add the workers
#   scripts/citus-rehearsal.sh down    # stop the three clusters (data kept)
#   scripts/citus-rehearsal.sh status
#
# Then: DATABASE_URL=postgresql://postgres@127.0.0.1:5441/svc npm run db:migrate distributes the schema.
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
DIR=${CITUS_DIR:-/tmp/citus-rehearsal}
COORD=${CITUS_COORDINATOR_PORT:-5441}
WORKERS=(${CITUS_WORKER_PORTS:-5442 5443})
DB=${CITUS_DB:-svc}

as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else bash -c "$*"; fi; }
psql_at() { as_pg "$PGBIN/psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $1 -U postgres -d $2 -c \"$3\""; }

init_node() {
  local port=$1 data="$DIR/$1"
  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$DIR" && chmod 777 "$DIR"
    as_pg "$PGBIN/initdb -D $data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null"
    cat >>"$data/postgresql.conf" <<EOF
shared_preload_libraries = 'citus'
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
max_connections = 300
max_prepared_transactions = 200
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
# Triggers remain on tenant tables (ledger balance, lookups, outbox): Citus runs them on the shards.
citus.enable_unsafe_triggers = on
# Per-database counters of single- and multi-shard executions (citus_stat_counters): the rehearsal's figures.
citus.enable_stat_counters = on
# Few shards per table for a rehearsal on one machine (a production cluster keeps the default 32 or more).
citus.shard_count = 8
EOF
    echo "host all all 127.0.0.1/32 trust" >"$data/pg_hba.conf"
    echo "local all all trust" >>"$data/pg_hba.conf"
  fi
  if ! as_pg "$PGBIN/pg_ctl -D $data status" >/dev/null 2>&1; then
    as_pg "$PGBIN/pg_ctl -D $data -l $DIR/$port.log -w start" >/dev/null
  fi
}

ensure_db() {
  local port=$1
  if [ -z "$(as_pg "$PGBIN/psql -X -Atq -h 127.0.0.1 -p $port -U postgres -d postgres -c \"SELECT 1 FROM pg_database WHERE datname = '$DB'\"")" ]; then
    psql_at "$port" postgres "CREATE DATABASE $DB"
  fi
  psql_at "$port" "$DB" "CREATE EXTENSION IF NOT EXISTS citus"
}

case "${1:-up}" in
  up)
    for p in "$COORD" "${WORKERS[@]}"; do init_node "$p"; done
    for p in "$COORD" "${WORKERS[@]}"; do ensure_db "$p"; done
    psql_at "$COORD" "$DB" "SELECT citus_set_coordinator_host('127.0.0.1', $COORD)"
    for p in "${WORKERS[@]}"; do
      psql_at "$COORD" "$DB" "SELECT citus_add_node('127.0.0.1', $p) WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodeport = $p)"
    done
    as_pg "$PGBIN/psql -X -h 127.0.0.1 -p $COORD -U postgres -d $DB -c 'SELECT nodename, nodeport, noderole, shouldhaveshards FROM pg_dist_node ORDER BY nodeport'"
    ;;
  down)
    for p in "$COORD" "${WORKERS[@]}"; do as_pg "$PGBIN/pg_ctl -D $DIR/$p -m fast stop" || true; done
    ;;
  status)
    for p in "$COORD" "${WORKERS[@]}"; do as_pg "$PGBIN/pg_ctl -D $DIR/$p status" || true; done
    ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
