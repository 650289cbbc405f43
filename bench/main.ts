/**
 * `npm run bench`: starts an isolated environment (fresh database, ephemeral Temporal dev server,
 * the real API and worker on 127.0.0.1), runs the selected scenarios from bench/scenarios/, prints
 * a markdown table and writes it to bench/results/latest.md, then tears everything down.
 *
 *   BENCH_SCENARIOS=customers-create,customers-search   subset, in that order (default: all)
 *   BENCH_DURATION=10        seconds of measured load per run
 *   BENCH_WARMUP=3           seconds of unreported load before each scenario (0: none)
 *   BENCH_CONNECTIONS=10,50  connection counts per scenario
 *   BENCH_ROUNDS=2           alternating floor/service rounds per row
 *   BENCH_STEADY_ROUNDS=8    rounds of a steady row (checkout create against the bare start)
 *   BENCH_OUTPUT=bench/results/latest.md
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEnvironment, type BenchSettings } from './support/environment';
import { cpuTable, describeMachine, machineLine, markdownReport, markdownTable } from './support/report';
import { isScenario, type Measurement, type Scenario } from './support/scenario';

const ROOT = path.resolve(__dirname, '..');
/** A bad setting or scenario name: reported without a stack trace. */
class UsageError extends Error {}
const log = (line: string) => process.stderr.write(`\x1b[1m[bench]\x1b[0m ${line}\n`);

function number(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min) throw new UsageError(`${name} must be a number >= ${min} (got ${raw})`);
  return value;
}

function readSettings(): BenchSettings {
  const connections = (process.env.BENCH_CONNECTIONS || '10,50').split(',').map((c) => Number(c.trim()));
  if (!connections.length || connections.some((c) => !Number.isInteger(c) || c < 1 || c > 1000)) {
    throw new UsageError(`BENCH_CONNECTIONS must be a comma-separated list of integers in 1..1000 (got ${process.env.BENCH_CONNECTIONS})`);
  }
  return { duration: number('BENCH_DURATION', 10, 1), warmup: number('BENCH_WARMUP', 3, 0), connections, rounds: number('BENCH_ROUNDS', 2, 1), steadyRounds: number('BENCH_STEADY_ROUNDS', 8, 1) };
}

/** Every file in bench/scenarios/ default-exports a Scenario named like the file. */
async function loadScenarios(): Promise<Scenario[]> {
  const dir = path.join(__dirname, 'scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  const all: Scenario[] = [];
  for (const file of files) {
    const loaded = ((await import(path.join(dir, file))) as { default?: unknown }).default;
    if (!isScenario(loaded)) throw new Error(`bench/scenarios/${file} must default-export a scenario ({ name, description, setup, run })`);
    if (loaded.name !== path.basename(file, '.ts')) throw new Error(`bench/scenarios/${file} exports the scenario "${loaded.name}"; name it like the file`);
    all.push(loaded);
  }
  const wanted = (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!wanted.length) return [...all.filter((s) => !s.startsWorkflows), ...all.filter((s) => s.startsWorkflows)];
  return wanted.map((name) => {
    const found = all.find((s) => s.name === name);
    if (!found) throw new UsageError(`unknown scenario "${name}" in BENCH_SCENARIOS; available: ${all.map((s) => s.name).join(', ')}`);
    return found;
  });
}

let stopEnvironment: (() => Promise<void>) | null = null;
let stopping: Promise<void> | null = null;
function teardown(): Promise<void> {
  stopping ??= (async () => {
    if (!stopEnvironment) return;
    log('tearing down (API, worker, Temporal, database)');
    await stopEnvironment();
  })();
  return stopping;
}

async function main(): Promise<number> {
  const settings = readSettings();
  const scenarios = await loadScenarios();
  if (!scenarios.length) throw new Error('no scenarios selected');
  const startedAt = new Date();
  const loadAverage = os.loadavg()[0] ?? 0;
  const estimate = scenarios.length * (settings.warmup + settings.duration * settings.connections.length);
  if (loadAverage > 0.5) log(`warning: 1-minute load average is ${loadAverage.toFixed(2)}; other work on this machine will skew the figures`);
  log(`scenarios: ${scenarios.map((s) => s.name).join(', ')}; connections ${settings.connections.join(', ')}; ~${estimate} s of load`);

  const env = await startEnvironment(settings, log, (stop) => (stopEnvironment = stop));
  const machine = await describeMachine(env.db, loadAverage);
  log(`machine: ${machineLine(machine)}`);

  const rows: Measurement[] = [];
  const failed: string[] = [];
  for (const scenario of scenarios) {
    try {
      log(`${scenario.name}: setting up`);
      const state = await scenario.setup(env);
      log(`${scenario.name}: measuring`);
      const measured = await scenario.run(env, state);
      for (const row of measured) {
        const floor = row.floor ? `; floor ${row.floor.requestsPerSecond.toFixed(0)} req/s, p50 ${row.floor.latencyMs.p50} ms` : '';
        log(`${row.scenario} c=${row.connections}: ${row.requestsPerSecond.toFixed(0)} req/s, p50 ${row.latencyMs.p50} ms, p99 ${row.latencyMs.p99} ms, errors ${row.errors}, non-2xx ${row.non2xx}${floor}`);
      }
      rows.push(...measured);
    } catch (error) {
      failed.push(scenario.name);
      log(`${scenario.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  await teardown();

  const report = markdownReport({ rows, machine, settings, scenarios: scenarios.filter((s) => !failed.includes(s.name)), startedAt, temporal: env.temporalDescription });
  process.stdout.write(`\n${markdownTable(rows)}\n\n${cpuTable(rows)}\n\nMachine: ${machineLine(machine)}\n\n`);
  if (failed.length) {
    log(`failed: ${failed.join(', ')}; ${path.relative(ROOT, output())} left unchanged`);
    return 1;
  }
  mkdirSync(path.dirname(output()), { recursive: true });
  writeFileSync(output(), report);
  log(`wrote ${path.relative(ROOT, output())}`);
  return 0;
}

function output(): string {
  return path.resolve(ROOT, process.env.BENCH_OUTPUT || 'bench/results/latest.md');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void teardown().finally(() => process.exit(130));
  });
}

main()
  .then((code) => process.exit(code))
  .catch(async (error: unknown) => {
    log(error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    await teardown().catch(() => undefined);
    process.exit(1);
  });
