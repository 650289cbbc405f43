#!/usr/bin/env bash
# `npm test`: every test. Starts what the tests need itself (an isolated database and an
# ephemeral Temporal server on free ports, in the jest global setup), so two runs never collide.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

prepare_test_run

log "type-checking and compiling (the tests' child processes run the compiled service)"
npx tsc -p tsconfig.json
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
  // Where the time goes: the slowest files (two run at once), for keeping the run short.
  const files = r.testResults.map((f) => ({ file: require("path").relative(process.cwd(), f.name), s: (f.endTime - f.startTime) / 1000 }));
  const total = files.reduce((sum, f) => sum + f.s, 0);
  console.log(`files: ${files.length}, ${Math.round(total)} s in all, ${Math.round((Date.now() - r.startTime) / 1000)} s of jest; the slowest:`);
  for (const f of files.sort((a, b) => b.s - a.s).slice(0, 15)) console.log(`  ${f.s.toFixed(0).padStart(5)} s  ${f.file}`);
' "$RESULTS" || true
rm -f "$RESULTS"
exit "$status"
