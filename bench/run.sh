#!/usr/bin/env bash
# `npm run bench`: what a fresh machine needs (like scripts/test.sh), then bench/main.ts, which
# starts its own database, Temporal dev server, API and worker on 127.0.0.1 and removes them after.
# Needs PostgreSQL on 127.0.0.1:5432 (trust auth) or DATABASE_ADMIN_URL. See bench/README.md.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib.sh"
cd "$ROOT"

ensure_node_modules
TEMPORAL_CLI_PATH="$(find_or_build_temporal)"
export TEMPORAL_CLI_PATH
export DATABASE_ADMIN_URL="${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

exec npx tsx bench/main.ts "$@"
