import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What `npm start` (scripts/start.sh, with scripts/lib.sh) prints: no password or token, ever. */
const ROOT = path.resolve(__dirname, '../..');

/** Runs the start script's migration step as it logs it, with the database URL given. */
function migrationLogLine(databaseUrl: string): string {
  const lines = readFileSync(path.join(ROOT, 'scripts/start.sh'), 'utf8').split('\n');
  const line = lines.find((l) => l.includes('log "migrating the database'))!;
  const run = spawnSync('bash', ['-c', `source scripts/lib.sh; ${line}`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stderr;
}

describe('npm start output', () => {
  it('names the database it migrates without the password in DATABASE_URL', () => {
    const printed = migrationLogLine('postgres://payments:a-db-password-0004@db.internal:5432/payments');
    expect(printed).toContain('db.internal:5432/payments');
    expect(printed).not.toContain('a-db-password-0004');
    expect(migrationLogLine('postgres://postgres@127.0.0.1:5432/payments')).toContain('postgres://postgres@127.0.0.1:5432/payments');
  });
});

/** Runs bash with scripts/lib.sh sourced, in a scratch directory whose `bin` comes first on PATH (fake `go`, `npx`). */
function inScratch(script: string, scratch: string, env: Record<string, string> = {}) {
  return spawnSync('bash', ['-c', `set -euo pipefail; source "${ROOT}/scripts/lib.sh"; ${script}`], {
    cwd: scratch,
    env: { PATH: `${scratch}/bin:${process.env.PATH ?? ''}`, HOME: scratch, PAYMENTS_CACHE_DIR: `${scratch}/cache`, ...env },
    encoding: 'utf8',
  });
}

/** A scratch directory with a fake `go` whose `install` takes `seconds`, records its arguments, and leaves an executable in GOBIN. */
function scratchWithSlowGo(seconds: number): string {
  const scratch = mkdtempSync(path.join(tmpdir(), 'payments-scripts-'));
  mkdirSync(path.join(scratch, 'bin'));
  const go = `#!/usr/bin/env bash
[ "$1" = install ] || exit 1
pkg="\${@: -1}"
echo "$pkg CGO_ENABLED=\${CGO_ENABLED:-} $*" >> "${scratch}/go-installs"
sleep ${seconds}
name="\${pkg%@*}"; name="\${name##*/}"; [ "$name" = temporal ] || [ "$name" = mailpit ] || [ "$name" = stripe-mock ] || exit 1
mkdir -p "$GOBIN" && printf '#!/bin/sh\\n' > "$GOBIN/$name" && chmod +x "$GOBIN/$name"
`;
  writeFileSync(path.join(scratch, 'bin/go'), go, { mode: 0o755 });
  return scratch;
}

describe('the Go tools of a fresh machine', () => {
  it('build side by side, and each path is found in the cache', () => {
    const scratch = scratchWithSlowGo(4);
    const started = Date.now();
    const run = inScratch('start_tool_builds temporal mailpit stripe-mock; wait_for_tool temporal A; wait_for_tool mailpit B; wait_for_tool stripe-mock C; echo "$A $B $C"', scratch);
    const seconds = (Date.now() - started) / 1000;
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split(' ')).toEqual([`${scratch}/cache/temporal-1.5.1/temporal`, `${scratch}/cache/mailpit-1.33.1/mailpit`, `${scratch}/cache/stripe-mock-0.203.0/stripe-mock`]);
    // One after another they would take 12 s.
    expect(seconds).toBeLessThan(9);
    const installs = readFileSync(path.join(scratch, 'go-installs'), 'utf8').trim().split('\n');
    expect(installs).toHaveLength(3);
    // Small, fast builds: no cgo, no debug information, no symbol table.
    for (const line of installs) expect(line).toMatch(/ CGO_ENABLED=0 install -trimpath -ldflags=-s -w -gcflags=all=-dwarf=false \S+@v[\d.]+$/);
    // Built: a second run finds them without Go.
    expect(inScratch('start_tool_builds temporal; wait_for_tool temporal A; echo "$A"', scratch, { PATH: `/usr/bin:/bin` }).stdout.trim()).toBe(`${scratch}/cache/temporal-1.5.1/temporal`);
  });

  it('build once when two runs want the same tool at the same time', () => {
    const scratch = scratchWithSlowGo(1);
    const run = inScratch('(find_or_build_temporal > a) & (find_or_build_temporal > b) & wait; cat a b', scratch);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([`${scratch}/cache/temporal-1.5.1/temporal`, `${scratch}/cache/temporal-1.5.1/temporal`]);
    expect(readFileSync(path.join(scratch, 'go-installs'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('stops the run when a build fails', () => {
    const scratch = scratchWithSlowGo(0);
    writeFileSync(path.join(scratch, 'bin/go'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const run = inScratch('start_tool_builds mailpit; wait_for_tool mailpit B; echo "reached"', scratch);
    expect(run.status).not.toBe(0);
    expect(run.stdout).not.toContain('reached');
  });
});

describe('the compiled service (dist/)', () => {
  /** A scratch project: sources, a fake `npx` and a fake bundler that each note their call. */
  function scratchProject(): string {
    const scratch = mkdtempSync(path.join(tmpdir(), 'payments-compile-'));
    for (const dir of ['bin', 'src', 'workflows', 'activities', 'sdk/src', 'dist/src/entry']) mkdirSync(path.join(scratch, dir), { recursive: true });
    for (const file of ['src/a.ts', 'workflows/w.ts', 'activities/x.ts', 'sdk/src/s.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) writeFileSync(path.join(scratch, file), '');
    writeFileSync(path.join(scratch, 'bin/npx'), `#!/bin/sh\necho "npx $*" >> "${scratch}/calls"\n`, { mode: 0o755 });
    writeFileSync(path.join(scratch, 'dist/src/entry/bundle-workflows.js'), `require('fs').writeFileSync(process.argv[2], ''); require('fs').appendFileSync(${JSON.stringify(`${scratch}/calls`)}, 'bundle\\n');`);
    return scratch;
  }
  const calls = (scratch: string) => (existsSync(path.join(scratch, 'calls')) ? readFileSync(path.join(scratch, 'calls'), 'utf8').trim().split('\n') : []);
  const compile = (scratch: string) => inScratch(`ROOT="${scratch}"; compile_if_changed`, scratch);

  it('compiles and bundles on the first start, skips both on the next, and does both again after a source changed', () => {
    const scratch = scratchProject();
    expect(compile(scratch).status).toBe(0);
    expect(calls(scratch)).toEqual(['npx tsc -p tsconfig.build.json --incremental --tsBuildInfoFile dist/.tsbuildinfo', 'bundle']);
    expect(compile(scratch).status).toBe(0);
    expect(calls(scratch)).toHaveLength(2);
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(scratch, 'workflows/w.ts'), later, later);
    expect(compile(scratch).status).toBe(0);
    expect(calls(scratch)).toHaveLength(4);
  });
});
