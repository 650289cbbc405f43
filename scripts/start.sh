#!/usr/bin/env bash
# `npm start`: everything a fresh machine needs, then the Temporal dev server, the workers and the API.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

export PORT="${PORT:-3000}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/payments}"
export TEMPORAL_NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
export TEMPORAL_TASK_QUEUE="${TEMPORAL_TASK_QUEUE:-payments}"
export TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"   # the API links the dashboard to the UI on this port
PIDS=()
cleanup() { for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
mkdir -p .data

MAILPIT_LAUNCHED=""
# On a fresh machine the Temporal CLI builds with Go while npm installs and TypeScript compiles.
START_TEMPORAL=""
if [ -z "${TEMPORAL_ADDRESS:-}" ]; then
  export TEMPORAL_ADDRESS="127.0.0.1:${TEMPORAL_PORT:-7233}"
  if port_open 127.0.0.1 "${TEMPORAL_ADDRESS##*:}"; then
    log "using the Temporal server already listening on $TEMPORAL_ADDRESS"
  else
    START_TEMPORAL=1
    start_tool_builds temporal
  fi
fi

# Mailpit catches the merchant dashboard's mails (invitations, password resets) unless SMTP_URL
# names a real server; its inbox is a web page. Nobody waits for it: on a fresh machine it builds
# after the Temporal CLI, at a lower priority, and starts when built; until then mails wait in the
# outbox (docs/merchant-accounts.md).
if [ -z "${SMTP_URL:-}" ]; then
  MAILPIT_SMTP_PORT="${MAILPIT_SMTP_PORT:-1025}" MAILPIT_UI_PORT="${MAILPIT_UI_PORT:-8025}"
  export SMTP_URL="smtp://127.0.0.1:$MAILPIT_SMTP_PORT"
  if port_open 127.0.0.1 "$MAILPIT_SMTP_PORT"; then
    log "using the SMTP server already listening on 127.0.0.1:$MAILPIT_SMTP_PORT"
  else
    (
      if [ -n "$START_TEMPORAL" ]; then until [ -s "$TOOL_PATHS_DIR/temporal" ]; do sleep 1; done; fi
      MAILPIT_BIN="$(GO_BUILD_NICE=10 find_or_build_mailpit)" || exit 1
      log "starting Mailpit (SMTP :$MAILPIT_SMTP_PORT, inbox http://localhost:$MAILPIT_UI_PORT)"
      exec "$MAILPIT_BIN" --smtp "127.0.0.1:$MAILPIT_SMTP_PORT" --listen "127.0.0.1:$MAILPIT_UI_PORT" \
        --database .data/mailpit.db --disable-version-check --quiet > .data/mailpit.log 2>&1
    ) &
    PIDS+=($!)
    MAILPIT_LAUNCHED=1
  fi
  INBOX="http://localhost:$MAILPIT_UI_PORT"
else
  INBOX="mails go to \$SMTP_URL"
fi

ensure_node_modules
compile_if_changed
export WORKFLOW_BUNDLE_PATH="$ROOT/dist/workflow-bundle.js"
log "migrating the database ($(redact_url "$DATABASE_URL"))"
# Beside Temporal's start: neither needs the other, and the API and the worker need both.
node dist/src/entry/migrate.js & MIGRATION=$!

if [ -n "$START_TEMPORAL" ]; then
  wait_for_tool temporal TEMPORAL_BIN
  log "starting the Temporal dev server on $TEMPORAL_ADDRESS (UI :$TEMPORAL_UI_PORT, data .data/temporal.db)"
  # WAL and synchronous=NORMAL: commits stop waiting for an fsync each (a bare workflow start was
  # fsync-bound near 80/s); state still survives a restart or a crash of the server. Eager
  # activities: an activity a workflow task schedules comes back to the same worker in that
  # task's completion, without a trip through matching (a checkout's expiry is one). Priority and
  # fairness: a customer's attempt goes ahead of expiries and retries (src/temporal/server-config.ts).
  "$TEMPORAL_BIN" server start-dev --ip 127.0.0.1 --port "${TEMPORAL_ADDRESS##*:}" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename .data/temporal.db --namespace "$TEMPORAL_NAMESPACE" --log-level warn \
    --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
    --dynamic-config-value system.enableActivityEagerExecution=true \
    --dynamic-config-value matching.useNewMatcher=true --dynamic-config-value matching.enableFairness=true \
    --search-attribute MerchantId=Keyword --search-attribute CustomerId=Keyword --search-attribute CheckoutType=Keyword \
    > .data/temporal.log 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 120); do port_open 127.0.0.1 "${TEMPORAL_ADDRESS##*:}" && break; sleep 0.5; done
  port_open 127.0.0.1 "${TEMPORAL_ADDRESS##*:}" || die "Temporal did not start; see .data/temporal.log"
fi
wait "$MIGRATION" || die "the migration failed"

# Two workers (docs/deployment.md, "Worker roles"): the interactive one polls the task queue (the
# customers' attempts); the background one polls the background task queue (expiries and their
# webhooks) and runs the sweeps, under nice, so a wave of expiries takes no CPU an attempt needs.
# Its health port is the next one up. WORKER_ROLE=all runs one worker for both instead.
export WORKER_HTTP_PORT="${WORKER_HTTP_PORT:-3001}"
if [ "${WORKER_ROLE:-}" = all ]; then
  node dist/src/entry/worker.js & PIDS+=($!)
else
  next_port() { if [ "$1" = 0 ]; then echo 0; else echo $(($1 + 1)); fi; }
  BACKGROUND_ENV=(WORKER_ROLE=background "WORKER_HTTP_PORT=$(next_port "$WORKER_HTTP_PORT")")
  if [ -n "${TEMPORAL_METRICS_BIND_ADDRESS:-}" ]; then
    BACKGROUND_ENV+=("TEMPORAL_METRICS_BIND_ADDRESS=${TEMPORAL_METRICS_BIND_ADDRESS%:*}:$(next_port "${TEMPORAL_METRICS_BIND_ADDRESS##*:}")")
  fi
  WORKER_ROLE=interactive node dist/src/entry/worker.js & PIDS+=($!)
  env "${BACKGROUND_ENV[@]}" nice -n 10 node dist/src/entry/worker.js & PIDS+=($!)
fi
node dist/src/entry/api.js & PIDS+=($!)
# A fresh machine has nobody to sign in to the operator dashboard: in development the first
# operator is invited by mail (docs/operator-guide.md); elsewhere, with the admin token, by hand.
if [ "${NODE_ENV:-development}" = development ]; then node scripts/first-operator.mjs || true; fi
# On a fresh machine Mailpit may still be building: its mails are kept, not lost (the worker's
# warnings about the refused connection say so until it answers).
if [ -n "$MAILPIT_LAUNCHED" ] && ! port_open 127.0.0.1 "$MAILPIT_SMTP_PORT"; then
  INBOX="$INBOX   (Mailpit is still building; mails wait in the outbox until it starts)"
fi

# The token itself is never printed: a set ADMIN_TOKEN is shown by name.
if [ -n "${ADMIN_TOKEN:-}" ]; then ADMIN_SHOWN='$ADMIN_TOKEN'; else ADMIN_SHOWN='dev-admin-token'; fi
cat >&2 <<INFO

  API          http://localhost:$PORT/api/v1   (OpenAPI: /api/v1/openapi.json)
  Wallet       ${WALLET_BASE_URL:-http://localhost:$PORT}/checkout/{checkout_id}?client_secret=...
  Dashboard    http://localhost:$PORT/dashboard   (your email, password and authenticator code)
  Merchants    http://localhost:$PORT/merchant    (a merchant's people, invited from the dashboard)
  Admin API    http://localhost:$PORT/admin/v1   (Authorization: Bearer $ADMIN_SHOWN)
  Temporal UI  http://localhost:$TEMPORAL_UI_PORT  (Temporal gRPC at $TEMPORAL_ADDRESS)
  Mail inbox   $INBOX   (invitations and password resets)

INFO
# Stop everything if any one part stops.
wait -n
