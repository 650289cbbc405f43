import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FloorMessage } from '../floors/server';
import { CPU_GROUPS, cpuByGroup, cpuSince, type CpuGroup } from './proc-stat';
import { fromSamples } from './samples';
import type { BenchEnvironment } from './environment';
import type { Measurement } from './scenario';

/** One measured run: the latency of every successful operation, and what failed. */
export interface Run {
  samples: number[];
  seconds: number;
  failures: number;
  errors?: number;
  /** Seconds of `seconds` spent after the load, waiting for the run's workflows to run their first tasks. */
  drainSeconds?: number;
}

/** CPU samples of one side's runs, added up by group. */
function addUp(samples: Array<Record<CpuGroup, number>>): Record<CpuGroup, number> {
  return Object.fromEntries(CPU_GROUPS.map((g) => [g, samples.reduce((sum, sample) => sum + sample[g], 0)])) as Record<CpuGroup, number>;
}

/** Runs of one side, merged: samples concatenated, windows added up. */
function merge(runs: Run[]): Run {
  return {
    samples: runs.flatMap((r) => r.samples),
    seconds: runs.reduce((sum, r) => sum + r.seconds, 0),
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
    errors: runs.reduce((sum, r) => sum + (r.errors ?? 0), 0),
    drainSeconds: runs.reduce((sum, r) => sum + (r.drainSeconds ?? 0), 0),
  };
}

/**
 * The service beside its floor in the same run: BENCH_ROUNDS rounds (default 2), each running
 * the floor then the service for duration ÷ rounds seconds, so drift on the machine (a
 * checkpoint, a growing table, another process) falls on both sides alike. One row, with the floor.
 * A steady row runs BENCH_STEADY_ROUNDS rounds (default 8, never fewer than BENCH_ROUNDS) of the
 * same length: three 2-round runs of checkout create against the bare start, one code on one idle
 * machine, gave 0.80× to 0.99×, a spread wider than the distance to its 0.9× target.
 */
export async function alternateWithFloor(
  env: BenchEnvironment,
  input: {
    scenario: string;
    connections: number;
    note?: string;
    /** Run as a steady row (see above). */
    steady?: boolean;
    service: (seconds: number) => Promise<Run>;
    floor?: (seconds: number) => Promise<Run>;
  },
): Promise<Measurement> {
  const { settings } = env;
  const plainRounds = input.floor ? settings.rounds : 1;
  const seconds = Math.max(1, Math.round(settings.duration / plainRounds));
  const steady = Boolean(input.floor && input.steady && settings.steadyRounds > settings.rounds);
  const rounds = steady ? settings.steadyRounds : plainRounds;
  const service: Run[] = [];
  const floor: Run[] = [];
  const serviceCpu: Array<Record<CpuGroup, number>> = [];
  const floorCpu: Array<Record<CpuGroup, number>> = [];
  // CPU by process over each run, so a row says where a request's CPU went on either side.
  const timed = async (run: (seconds: number) => Promise<Run>, cpu: Array<Record<CpuGroup, number>>): Promise<Run> => {
    const before = cpuByGroup(env.pids);
    const result = await run(seconds);
    cpu.push(cpuSince(before, cpuByGroup(env.pids)));
    return result;
  };
  // Floor first in even rounds, service first in odd ones (F S S F ...): whatever drifts over a
  // row (a server's history or WAL growing, a checkpoint that one side's run leaves behind for the
  // next run) then weighs on both sides alike instead of always following the same one.
  for (let round = 0; round < rounds; round++) {
    const runFloor = async () => {
      if (input.floor) floor.push(await timed(input.floor, floorCpu));
    };
    if (round % 2 === 0) await runFloor();
    service.push(await timed(input.service, serviceCpu));
    if (round % 2 === 1) await runFloor();
  }
  const s = merge(service);
  const f = merge(floor);
  const drained = [s.drainSeconds ? `${s.drainSeconds.toFixed(1)} s of the service's ${s.seconds.toFixed(1)} s` : '', f.drainSeconds ? `${f.drainSeconds.toFixed(1)} s of the floor's ${f.seconds.toFixed(1)} s` : '']
    .filter(Boolean)
    .join(' and ');
  const note = [
    steady ? `a steady row: ${rounds} alternating rounds of ${seconds} s a side` : '',
    input.note,
    drained ? `rounds ended once their workflows' first tasks had run, a wait counted in req/s: ${drained}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const row: Measurement = { ...fromSamples(input.scenario, input.connections, s.seconds, s.samples, s.failures, note), errors: s.errors ?? 0, cpuSeconds: addUp(serviceCpu) };
  if (!note) delete row.note;
  if (!input.floor) return row;
  const measured = fromSamples(`${input.scenario} floor`, input.connections, f.seconds, f.samples, f.failures, '');
  return {
    ...row,
    floor: { requestsPerSecond: measured.requestsPerSecond, latencyMs: measured.latencyMs, requests: measured.requests, failures: f.failures + (f.errors ?? 0), cpuSeconds: addUp(floorCpu) },
  };
}

/** The floor server (bench/floors/server.ts), compiled and run by plain node like the API under test. */
export async function startFloorServer(env: NodeJS.ProcessEnv, cleanups: Array<() => Promise<void>>, execArgv: string[] = []): Promise<{ url: string; pid: number }> {
  const server = path.resolve(__dirname, '../../dist/bench/floors/server.js');
  if (!existsSync(server)) throw new Error(`${server} is missing: run the benchmarks with npm run bench, which compiles first`);
  const child: ChildProcess = fork(server, [], {
    cwd: path.resolve(__dirname, '../..'),
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv,
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the floor server did not become ready within 180 s')), 180_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the floor server exited during start-up (code ${code})`));
    });
    child.on('message', (message: FloorMessage) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve({ url: `http://127.0.0.1:${message.port}`, pid: child.pid! });
      else reject(new Error(`the floor server failed to start: ${message.error}`));
    });
  });
}
