#!/usr/bin/env bash
# `npm test`: every test. Starts what the tests need itself (an isolated database and an
# ephemeral Temporal server on free ports, in the jest global setup), so two runs never collide.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

prepare_test_run

log "type-checking"
npx tsc --noEmit -p tsconfig.json
log "linting (ESLint: the workflow sandbox wall, floating promises; dependency-cruiser: the layers, no cycles; the docs: markdownlint, links)"
npm run --silent lint

log "running jest"
RESULTS="$(mktemp)"
status=0
npx jest --json --outputFile="$RESULTS" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$RESULTS" || true
rm -f "$RESULTS"
exit "$status"
