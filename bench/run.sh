#!/usr/bin/env bash
# `npm run bench`: what a fresh machine needs (like scripts/test.sh), then bench/main.ts, which
# starts its own database, Temporal dev server, API and worker on 127.0.0.1 and removes them after.
# It compiles first: the benchmarked processes run from dist/, as `npm start` runs them.
# Needs PostgreSQL on 127.0.0.1:5432 (trust auth) or DATABASE_ADMIN_URL. See bench/README.md.
# BENCH_SCRIPT=bench/open-checkouts.ts (or bench/temporal-start-rate.ts) runs another benchmark the same way.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib.sh"
cd "$ROOT"

ensure_node_modules
TEMPORAL_CLI_PATH="$(find_or_build_temporal)"
export TEMPORAL_CLI_PATH
export DATABASE_ADMIN_URL="${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

# The API, the worker and the floors run compiled, by plain node, on the prebuilt workflow
# bundle: exactly as `npm start` runs them (bench/support/environment.ts forks dist/).
log "compiling TypeScript"
npx tsc -p tsconfig.json
node dist/src/entry/bundle-workflows.js dist/workflow-bundle.js >/dev/null
export WORKFLOW_BUNDLE_PATH="${WORKFLOW_BUNDLE_PATH:-$ROOT/dist/workflow-bundle.js}"

# BENCH_TEMPORAL=cluster: Temporal's server on PostgreSQL, as `npm run test:cluster` starts it.
if [ "${BENCH_TEMPORAL:-}" = cluster ]; then
  source "$ROOT/scripts/temporal-cluster.sh"
  trap stop_temporal_cluster EXIT
  trap 'exit 130' INT TERM
  start_temporal_cluster
  export BENCH_TEMPORAL="$TEMPORAL_ADDRESS"
  npx tsx "${BENCH_SCRIPT:-bench/main.ts}" "$@"
else
  exec npx tsx "${BENCH_SCRIPT:-bench/main.ts}" "$@"
fi
