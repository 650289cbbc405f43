#!/usr/bin/env bash
# `npm run test:cluster`: the integration suite against Temporal's own server on PostgreSQL
# (4 history shards; scripts/temporal-cluster.sh), with two API processes behind one round-robin
# address and two worker processes (each with its outbox sweeper) per test file.
# The first run builds the server and its SQL tool with Go (a few minutes; docs/deployment.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/temporal-cluster.sh"
cd "$ROOT"

prepare_test_run

trap stop_temporal_cluster EXIT
trap 'exit 130' INT TERM
start_temporal_cluster

export TEST_TEMPORAL=cluster TEST_REPLICAS="${TEST_REPLICAS:-2}"
log "running jest against the cluster ($TEST_REPLICAS API and $TEST_REPLICAS worker processes per test file)"
status=0
npx jest "$@" || status=$?
exit "$status"
