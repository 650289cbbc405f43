import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { Db } from '../../src/storage/db';
import type { BenchSettings } from './environment';
import { CPU_GROUPS, type CpuGroup } from './proc-stat';
import type { Measurement, Scenario } from './scenario';

export interface Machine {
  cpu: string;
  cpus: number;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  /** 1-minute load average when the benchmark started: anything well above 0 means other work competed. */
  loadAverage: number;
}

export async function describeMachine(db: Db, loadAverage: number): Promise<Machine> {
  const cpus = os.cpus();
  const { rows } = (await db.raw('SELECT version() AS version')) as { rows: Array<{ version: string }> };
  const full = rows[0]?.version ?? 'unknown';
  return {
    cpu: (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    cpus: cpus.length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    // "PostgreSQL 16.4 (Debian 16.4-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by ..." -> before " on "
    postgres: full.split(' on ')[0] ?? full,
    loadAverage,
  };
}

export function machineLine(m: Machine): string {
  return `${m.cpu} × ${m.cpus} CPUs, ${m.memoryGiB.toFixed(1)} GiB RAM, ${m.os}, Node ${m.node}, ${m.postgres}`;
}

/** The short commit the benchmark ran at, and whether tracked files had uncommitted changes. */
export function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '–');

export function markdownTable(rows: Measurement[]): string {
  const lines = [
    '| Scenario | Connections | Req/s (mean) | p50 ms | p90 ms | p99 ms | Requests | Errors | Non-2xx | Floor req/s | Floor p50 ms | Floor p99 ms | Req/s ÷ floor | p50 ÷ floor | p99 ÷ floor |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const f = r.floor;
    const floorColumns = f
      ? `${f.requestsPerSecond.toFixed(0)} | ${ms(f.latencyMs.p50)} | ${ms(f.latencyMs.p99)} | ${ratio(r.requestsPerSecond, f.requestsPerSecond)} | ${ratio(r.latencyMs.p50, f.latencyMs.p50)} | ${ratio(r.latencyMs.p99, f.latencyMs.p99)}`
      : '– | – | – | – | – | –';
    lines.push(
      `| ${r.scenario} | ${r.connections} | ${r.requestsPerSecond.toFixed(0)} | ${ms(r.latencyMs.p50)} | ${ms(r.latencyMs.p90)} | ${ms(r.latencyMs.p99)} | ${r.requests} | ${r.errors} | ${r.non2xx} | ${floorColumns} |`,
    );
  }
  return lines.join('\n');
}

const GROUP_HEADINGS: Record<CpuGroup, string> = { api: 'API', worker: 'worker', background: 'background worker', floor: 'floor server', temporal: 'Temporal', postgres: 'PostgreSQL', load: 'load generator', other: 'other' };

/**
 * CPU milliseconds per request by process, the service's rounds beside the floor's, for rows
 * with a floor: where the ratio's gap is spent. Work a side leaves behind (a workflow's first
 * task run after its start was answered) is counted in the round in which it ran.
 */
export function cpuTable(rows: Measurement[]): string {
  const withFloor = rows.filter((r) => r.cpuSeconds && r.floor?.cpuSeconds && r.requests > 0 && r.floor.requests > 0);
  if (!withFloor.length) return '';
  const groups = CPU_GROUPS.filter((g) => withFloor.some((r) => r.cpuSeconds![g] + r.floor!.cpuSeconds![g] > 0.05));
  const perRequest = (cpu: Record<CpuGroup, number>, requests: number, g: CpuGroup) => ((cpu[g] * 1000) / requests).toFixed(2);
  const total = (cpu: Record<CpuGroup, number>, requests: number) => ((CPU_GROUPS.reduce((sum, g) => sum + cpu[g], 0) * 1000) / requests).toFixed(2);
  const lines = [
    `| Scenario | Connections | Side | ${groups.map((g) => GROUP_HEADINGS[g]).join(' | ')} | all |`,
    `|---|---:|---|${groups.map(() => '---:').join('|')}|---:|`,
  ];
  for (const r of withFloor) {
    for (const [side, cpu, requests] of [['service', r.cpuSeconds!, r.requests], ['floor', r.floor!.cpuSeconds!, r.floor!.requests]] as const) {
      lines.push(`| ${r.scenario} | ${r.connections} | ${side} | ${groups.map((g) => perRequest(cpu, requests, g)).join(' | ')} | ${total(cpu, requests)} |`);
    }
  }
  return lines.join('\n');
}

/** service ÷ floor, e.g. "0.62×"; for latency above 1 means slower than the floor. */
function ratio(service: number, floor: number): string {
  return Number.isFinite(service / floor) && floor > 0 ? `${(service / floor).toFixed(2)}×` : '–';
}

export function markdownReport(input: {
  rows: Measurement[];
  machine: Machine;
  settings: BenchSettings;
  scenarios: Scenario[];
  startedAt: Date;
  temporal: string;
}): string {
  const { rows, machine, settings, scenarios, startedAt, temporal } = input;
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.scenario} (${r.connections}): ${r.note}`);
  const cpu = cpuTable(rows);
  return [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench\` on ${startedAt.toISOString()} at commit ${commit()}.`,
    `Each row is ${settings.duration} s of load from autocannon (pipelining 1) over 127.0.0.1` +
      (settings.warmup > 0 ? `, after a ${settings.warmup} s warm-up per scenario.` : '.'),
    '',
    `**Machine:** ${machineLine(machine)}.`,
    `**Temporal:** ${temporal}.`,
    'The load generator, the API and worker processes, PostgreSQL and the Temporal server all share this machine' +
      ` (1-minute load average before the run: ${machine.loadAverage.toFixed(2)}).`,
    '',
    markdownTable(rows),
    '',
    ...(cpu ? ['CPU per request (ms) by process over the same rounds, service beside floor:', '', cpu, ''] : []),
    ...scenarios.map((s) => `- **${s.name}**: ${s.description}`),
    ...(notes.length ? ['', ...notes] : []),
    '',
    'Latencies are per request as seen by the client (ms). Errors are socket errors and timeouts; Non-2xx are HTTP answers outside 2xx.',
    `Floors (bench/floors/server.ts) do only the unavoidable part of the same work; each row ran ${settings.rounds} alternating rounds of floor then service${settings.steadyRounds > settings.rounds ? `, and a steady row (its note says so) ${settings.steadyRounds} rounds of the same length` : ''}.`,
    'See bench/README.md for how to read these numbers.',
    '',
  ].join('\n');
}
