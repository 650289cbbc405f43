# Temporal's own server on the local PostgreSQL, for `npm run test:cluster` and
# `BENCH_TEMPORAL=cluster npm run bench`. Source after lib.sh, then:
#   start_temporal_cluster     builds the server once, creates two throwaway databases, sets up the
#                              schema, serves on free ports, creates the namespace and our search
#                              attributes; exports TEMPORAL_ADDRESS
#   stop_temporal_cluster      stops the server and drops both databases (idempotent; call from a trap)
# shellcheck shell=bash

TEMPORAL_CLUSTER_SHARDS="${TEMPORAL_CLUSTER_SHARDS:-4}"
TEMPORAL_CLUSTER_PID=""
TEMPORAL_CLUSTER_DIR=""
TEMPORAL_CLUSTER_DBS=()

# N free loopback ports, one a line, below 32768: Temporal stores membership ports in a
# PostgreSQL smallint, so the kernel's ephemeral range (32768+) is refused at start.
free_ports() {
  node -e '
    const net = require("net");
    const tryPort = (port) => new Promise((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    (async () => {
      const ports = new Set();
      while (ports.size < Number(process.argv[1])) {
        const port = 20000 + Math.floor(Math.random() * 12000);
        if (!ports.has(port) && (await tryPort(port))) ports.add(port);
      }
      console.log([...ports].join("\n"));
    })();
  ' "$1"
}

start_temporal_cluster() {
  local server_dir cli module pg_url pg_host pg_port pg_user pg_password suffix
  server_dir="$(find_or_build_temporal_server)" || die "could not build Temporal's server"
  cli="$(find_or_build_temporal)"
  module="$(go env GOMODCACHE)/go.temporal.io/server@v$TEMPORAL_SERVER_VERSION"
  [ -d "$module/schema/postgresql/v12" ] || GOFLAGS=-mod=mod go mod download "go.temporal.io/server@v$TEMPORAL_SERVER_VERSION" \
    || die "Temporal's module source (schema) is not in the Go module cache"

  pg_url="${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  read -r pg_host pg_port pg_user pg_password < <(node -e '
    const u = new URL(process.argv[1]);
    console.log(u.hostname, u.port || 5432, decodeURIComponent(u.username) || "postgres", decodeURIComponent(u.password) || "-");
  ' "$pg_url")
  [ "$pg_password" = "-" ] && pg_password=""
  suffix="$$_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
  local temporal_db="temporal_cluster_$suffix" visibility_db="temporal_cluster_visibility_$suffix"
  TEMPORAL_CLUSTER_DIR="$(mktemp -d -t payments-temporal-cluster.XXXXXX)"

  local sql=("$server_dir/temporal-sql-tool" --plugin postgres12 --ep "$pg_host" -p "$pg_port" -u "$pg_user" --pw "$pg_password")
  log "setting up Temporal's schema in $temporal_db and $visibility_db"
  local db kind
  for kind in temporal visibility; do
    db="$temporal_db"; [ "$kind" = visibility ] && db="$visibility_db"
    TEMPORAL_CLUSTER_DBS+=("$db")
    {
      "${sql[@]}" --db "$db" create &&
      "${sql[@]}" --db "$db" setup-schema -v 0.0 &&
      "${sql[@]}" --db "$db" update-schema -d "$module/schema/postgresql/v12/$kind/versioned"
    } >>"$TEMPORAL_CLUSTER_DIR/schema.log" 2>&1 || die "schema set-up of $db failed; see $TEMPORAL_CLUSTER_DIR/schema.log"
  done

  local ports; mapfile -t ports < <(free_ports 9)
  mkdir -p "$TEMPORAL_CLUSTER_DIR/config"
  sed -e "s|@LOG_LEVEL@|${TEMPORAL_CLUSTER_LOG_LEVEL:-warn}|" \
      -e "s|@HISTORY_SHARDS@|$TEMPORAL_CLUSTER_SHARDS|" \
      -e "s|@TEMPORAL_DB@|$temporal_db|" -e "s|@VISIBILITY_DB@|$visibility_db|" \
      -e "s|@PG_HOST@|$pg_host|g" -e "s|@PG_PORT@|$pg_port|g" -e "s|@PG_USER@|$pg_user|g" -e "s|@PG_PASSWORD@|$pg_password|g" \
      -e "s|@FRONTEND_PORT@|${ports[0]}|g" -e "s|@FRONTEND_MEMBERSHIP_PORT@|${ports[1]}|" -e "s|@FRONTEND_HTTP_PORT@|${ports[2]}|" \
      -e "s|@MATCHING_PORT@|${ports[3]}|" -e "s|@MATCHING_MEMBERSHIP_PORT@|${ports[4]}|" \
      -e "s|@HISTORY_PORT@|${ports[5]}|" -e "s|@HISTORY_MEMBERSHIP_PORT@|${ports[6]}|" \
      -e "s|@WORKER_PORT@|${ports[7]}|" -e "s|@WORKER_MEMBERSHIP_PORT@|${ports[8]}|" \
      -e "s|@DYNAMIC_CONFIG@|$ROOT/config/temporal/dynamicconfig.yaml|" \
      "$ROOT/config/temporal/cluster.yaml.template" > "$TEMPORAL_CLUSTER_DIR/config/cluster.yaml"

  export TEMPORAL_ADDRESS="127.0.0.1:${ports[0]}"
  log "starting Temporal's server v$TEMPORAL_SERVER_VERSION on PostgreSQL ($TEMPORAL_CLUSTER_SHARDS history shards) at $TEMPORAL_ADDRESS"
  "$server_dir/server" --root "$TEMPORAL_CLUSTER_DIR" --config config --env cluster --allow-no-auth start \
    >"$TEMPORAL_CLUSTER_DIR/server.log" 2>&1 &
  TEMPORAL_CLUSTER_PID=$!
  local _
  for _ in $(seq 1 240); do
    "$cli" operator cluster health --address "$TEMPORAL_ADDRESS" --command-timeout 2s >/dev/null 2>&1 && break
    kill -0 "$TEMPORAL_CLUSTER_PID" 2>/dev/null || { tail -n 5 "$TEMPORAL_CLUSTER_DIR/server.log" | cut -c1-400 >&2; die "Temporal's server exited (its log above)"; }
    sleep 0.5
  done
  "$cli" operator cluster health --address "$TEMPORAL_ADDRESS" --command-timeout 2s >/dev/null 2>&1 \
    || die "Temporal's server did not become healthy; see $TEMPORAL_CLUSTER_DIR/server.log"

  local namespace="${TEMPORAL_NAMESPACE:-default}"
  # The frontend may answer health before the namespace registry is ready: retry briefly.
  for _ in $(seq 1 60); do
    "$cli" operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" --retention 24h >/dev/null 2>&1 && break
    "$cli" operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$namespace" >/dev/null 2>&1 && break
    sleep 0.5
  done
  "$cli" operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" \
    --name MerchantId --type Keyword --name CustomerId --type Keyword --name CheckoutType --type Keyword >/dev/null \
    || die "registering the search attributes failed"
  # Namespaces reach every service through a cache refreshed every few seconds: wait until a
  # start succeeds, so the first test does not meet "namespace not found".
  for _ in $(seq 1 60); do
    "$cli" workflow start --address "$TEMPORAL_ADDRESS" --namespace "$namespace" --task-queue cluster-probe \
      --type clusterProbe --workflow-id "cluster-probe-$suffix" >/dev/null 2>&1 && break
    sleep 0.5
  done
  "$cli" workflow terminate --address "$TEMPORAL_ADDRESS" --namespace "$namespace" --workflow-id "cluster-probe-$suffix" >/dev/null 2>&1 \
    || die "the namespace $namespace did not become usable; see $TEMPORAL_CLUSTER_DIR/server.log"
  log "Temporal cluster ready at $TEMPORAL_ADDRESS (namespace $namespace; logs in $TEMPORAL_CLUSTER_DIR)"
}

stop_temporal_cluster() {
  if [ -n "$TEMPORAL_CLUSTER_PID" ]; then
    kill "$TEMPORAL_CLUSTER_PID" 2>/dev/null || true
    wait "$TEMPORAL_CLUSTER_PID" 2>/dev/null || true
    TEMPORAL_CLUSTER_PID=""
  fi
  local db
  for db in "${TEMPORAL_CLUSTER_DBS[@]:-}"; do
    [ -n "$db" ] || continue
    if [ -z "${KEEP_TEMPORAL_CLUSTER:-}" ]; then
      node -e '
        const { Client } = require("pg");
        const c = new Client({ connectionString: process.argv[1] });
        c.connect().then(() => c.query(`DROP DATABASE IF EXISTS "${process.argv[2]}" WITH (FORCE)`)).finally(() => c.end());
      ' "${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}" "$db" || log "could not drop $db"
    fi
  done
  TEMPORAL_CLUSTER_DBS=()
  if [ -n "$TEMPORAL_CLUSTER_DIR" ] && [ -z "${KEEP_TEMPORAL_CLUSTER:-}" ]; then rm -rf "$TEMPORAL_CLUSTER_DIR"; fi
}
