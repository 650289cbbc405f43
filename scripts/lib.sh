# Shared helpers for start.sh and test.sh: bootstrap what a fresh machine lacks, idempotently.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_CLI_VERSION="1.5.1"
CACHE_DIR="${PAYMENTS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}"

log() { printf '\033[1m[payments]\033[0m %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# A URL as it may be printed: the password of its user info (postgres://user:password@host) masked.
redact_url() { printf '%s' "$1" | sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#'; }

# node_modules from the lock file. `npm ci` refuses our lock file on registries that lack some
# optional platform packages (@swc/core's), while `npm install` honours the lock as it is.
ensure_node_modules() {
  command -v node >/dev/null || die "Node.js 20+ is required (node not found on PATH)"
  local major; major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || die "Node.js 20+ is required (found $(node --version))"
  if [ ! -f "$ROOT/node_modules/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    log "installing npm dependencies"
    (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error) || die "npm install failed"
    touch "$ROOT/node_modules/.package-lock.json"
  fi
}

# Prints the path of a Go-built tool: the variable that names one, the cache, PATH, or a fresh
# `go install` into the cache (one build at a time, even when start and test run together on a
# fresh machine). Arguments: binary name, version, Go package, the variable, what to say when Go is missing.
find_or_build_go_tool() {
  local name="$1" version="$2" package="$3" variable="$4" hint="$5"
  local given="${!variable:-}"
  if [ -n "$given" ]; then
    [ -x "$given" ] || die "$variable=$given is not executable"
    echo "$given"; return
  fi
  local cached="$CACHE_DIR/$name-$version/$name"
  if [ -x "$cached" ]; then echo "$cached"; return; fi
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  command -v go >/dev/null 2>&1 || die "no $name found and Go is not installed to build one ($hint)"
  mkdir -p "$(dirname "$cached")"
  (
    flock 9
    if [ ! -x "$cached" ]; then
      log "building $name v$version with Go (once per machine; takes a few minutes)"
      # No cgo, no debug information: these are tools we run, not debug, and the compile and
      # the link of the Temporal CLI are the longest step of a first start. GOGC: the compiler
      # spends less of that time collecting garbage when it may use more memory.
      GOBIN="$(dirname "$cached")" GOFLAGS=-mod=mod CGO_ENABLED=0 GOGC="${GO_BUILD_GOGC:-400}" nice -n "${GO_BUILD_NICE:-0}" \
        go install -trimpath -ldflags='-s -w' -gcflags=all=-dwarf=false "$package@v$version" >&2 \
        || die "go install $package@v$version failed"
    fi
  ) 9>"$CACHE_DIR/$name-build.lock" || exit 1
  echo "$cached"
}

# The Go tools build side by side and beside npm install and the TypeScript compile, each in a
# background job that writes the tool's path to a file. The flock in find_or_build_go_tool still
# makes a second run (or `npm test` beside `npm start`) wait for the build under way, not redo it.
declare -A TOOL_JOBS=()
TOOL_PATHS_DIR=""

# Starts finding or building each tool named (temporal, mailpit, stripe-mock) in the background.
start_tool_builds() {
  [ -n "$TOOL_PATHS_DIR" ] || TOOL_PATHS_DIR="$(mktemp -d)"
  local tool
  for tool in "$@"; do
    ("find_or_build_${tool//-/_}" > "$TOOL_PATHS_DIR/$tool") &
    TOOL_JOBS[$tool]=$!
  done
}

# Waits for the background job of a tool (start_tool_builds) and sets the variable named to its path.
# Not in a $(...): only this shell can wait for its own jobs.
wait_for_tool() {
  local tool="$1" variable="$2"
  wait "${TOOL_JOBS[$tool]}" || die "could not find or build $tool"
  printf -v "$variable" '%s' "$(cat "$TOOL_PATHS_DIR/$tool")"
  export "${variable?}"
}

# Prints the path of a Temporal CLI: TEMPORAL_CLI_PATH, the cache, PATH, or a fresh build into the cache.
find_or_build_temporal() {
  find_or_build_go_tool temporal "$TEMPORAL_CLI_VERSION" github.com/temporalio/cli/cmd/temporal TEMPORAL_CLI_PATH "set TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS"
}

MAILPIT_VERSION="1.33.1"   # test/support/mailpit.ts names the same version

# Prints the path of Mailpit (the SMTP server that catches the merchant dashboard's mails in
# development and tests): MAILPIT_PATH, the cache, PATH, or a fresh build into the cache.
find_or_build_mailpit() {
  find_or_build_go_tool mailpit "$MAILPIT_VERSION" github.com/axllent/mailpit MAILPIT_PATH "set MAILPIT_PATH, or SMTP_URL for npm start"
}

STRIPE_MOCK_VERSION="0.203.0"

# Prints the path of stripe-mock (Stripe's official mock API server, for the Stripe connector's
# tests): STRIPE_MOCK_PATH, the cache, PATH, or a fresh build into the cache.
find_or_build_stripe_mock() {
  find_or_build_go_tool stripe-mock "$STRIPE_MOCK_VERSION" github.com/stripe/stripe-mock STRIPE_MOCK_PATH "set STRIPE_MOCK_PATH"
}

# Debian's chromium for the browser tests (playwright cannot download its own browser here).
ensure_chromium() {
  if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then return; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's chromium for the browser tests"
    (apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null) || die "apt-get install chromium failed"
  else
    die "chromium is required for the browser tests: install Debian's chromium or set CHROMIUM_PATH"
  fi
}

# What every test run needs: node_modules, the Temporal CLI, Mailpit, stripe-mock, chromium, the admin database URL.
# What is missing is built or installed side by side: the Go tools, chromium and npm install at once.
prepare_test_run() {
  start_tool_builds temporal mailpit stripe-mock
  ensure_chromium &
  local chromium=$!
  ensure_node_modules
  wait "$chromium" || die "chromium is missing"
  wait_for_tool temporal TEMPORAL_CLI_PATH
  wait_for_tool mailpit MAILPIT_PATH
  wait_for_tool stripe-mock STRIPE_MOCK_PATH
  export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
  export DATABASE_ADMIN_URL="${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
}

# The compiled service and its workflow bundles in dist/, rebuilt only when a source, a tsconfig or
# the lock file changed since the last build (a second start skips both steps).
compile_if_changed() {
  local stamp="$ROOT/dist/.build-stamp"
  if [ -f "$stamp" ] && [ -f "$ROOT/dist/workflow-bundle.js" ] \
    && [ -z "$(cd "$ROOT" && find src workflows activities sdk/src tsconfig.json tsconfig.build.json package-lock.json -newer "$stamp" -print -quit)" ]; then
    log "TypeScript unchanged since the last build (dist/)"
    return
  fi
  # Stamped with the time the build began: a file saved during the build is rebuilt next time.
  mkdir -p "$ROOT/dist" && touch "$stamp.new"
  log "compiling TypeScript"
  (cd "$ROOT" && npx tsc -p tsconfig.build.json --incremental --tsBuildInfoFile dist/.tsbuildinfo) || die "TypeScript did not compile"
  log "bundling workflows"
  node "$ROOT/dist/src/entry/bundle-workflows.js" "$ROOT/dist/workflow-bundle.js" >/dev/null || die "bundling the workflows failed"
  mv "$stamp.new" "$stamp"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Temporal's own server and its SQL schema tool, for `npm run test:cluster` (scripts/cluster.sh).
TEMPORAL_SERVER_VERSION="1.29.1"
TEMPORAL_SERVER_DIR="$CACHE_DIR/temporal-server-$TEMPORAL_SERVER_VERSION"

# Builds (once per machine, one build at a time) and prints the directory holding `server` and
# `temporal-sql-tool`, built from Temporal's Go modules like the CLI.
find_or_build_temporal_server() {
  if [ -x "$TEMPORAL_SERVER_DIR/server" ] && [ -x "$TEMPORAL_SERVER_DIR/temporal-sql-tool" ]; then echo "$TEMPORAL_SERVER_DIR"; return; fi
  command -v go >/dev/null 2>&1 || die "Go is required to build Temporal's server v$TEMPORAL_SERVER_VERSION"
  mkdir -p "$TEMPORAL_SERVER_DIR"
  (
    flock 9
    local module="go.temporal.io/server"
    if [ ! -x "$TEMPORAL_SERVER_DIR/server" ]; then
      log "building Temporal's server v$TEMPORAL_SERVER_VERSION with Go (once per machine; takes several minutes)"
      GOBIN="$TEMPORAL_SERVER_DIR" GOFLAGS=-mod=mod nice -n 10 go install "$module/cmd/server@v$TEMPORAL_SERVER_VERSION" >&2 \
        || die "go install $module/cmd/server@v$TEMPORAL_SERVER_VERSION failed"
    fi
    if [ ! -x "$TEMPORAL_SERVER_DIR/temporal-sql-tool" ]; then
      log "building Temporal's SQL schema tool v$TEMPORAL_SERVER_VERSION with Go"
      local tmp; tmp="$(mktemp -d)"
      GOBIN="$tmp" GOFLAGS=-mod=mod nice -n 10 go install "$module/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION" >&2 \
        || die "go install $module/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION failed"
      mv "$tmp/sql" "$TEMPORAL_SERVER_DIR/temporal-sql-tool" && rmdir "$tmp"
    fi
  ) 9>"$CACHE_DIR/temporal-server-build.lock" || exit 1
  echo "$TEMPORAL_SERVER_DIR"
}
