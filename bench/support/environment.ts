import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createDb, createScratchDatabase, dropDatabase, type Db } from '../../src/storage/db';
import { waitFor } from '../../test/support/fixtures';
import { startFloorServer } from './floors';
import { connectClient, startTemporal, temporalKindFromEnv } from './temporal';
import type { ServiceMessage, ServiceRole } from './service-process';

/**
 * An isolated environment per `npm run bench`, like the test global setup: a fresh database
 * (payments_bench_<random>, made by the tests' createScratchDatabase), an ephemeral Temporal dev
 * server on free loopback ports, and the real API and worker, each in a child process so the load
 * generator (this process) never shares their event loop. Everything listens on 127.0.0.1 only.
 */

export interface Merchant {
  id: string;
  api_key: string;
  client_secret: string;
  webhook_signing_secret: string;
  settings: Record<string, unknown>;
}

export interface BenchSettings {
  /** Seconds of measured load per run (BENCH_DURATION, default 10). */
  duration: number;
  /** Seconds of unreported load before a scenario's first run (BENCH_WARMUP, default 3; 0 disables). */
  warmup: number;
  /** Connection counts each load scenario is run at (BENCH_CONNECTIONS, default 10,50). */
  connections: number[];
  /** Alternating floor/service rounds per row (BENCH_ROUNDS, default 2). */
  rounds: number;
  /**
   * Rounds of a steady row (BENCH_STEADY_ROUNDS, default 8; never fewer than `rounds`), each as long
   * as any row's round (duration ÷ rounds): for a ratio whose target lies within a short row's noise.
   */
  steadyRounds: number;
}

export interface BenchEnvironment {
  baseUrl: string;
  adminToken: string;
  databaseUrl: string;
  temporalAddress: string;
  /** A client of that Temporal in this process, for looking at workflows (not for the measured path). */
  temporal: Client;
  /** Which Temporal server (BENCH_TEMPORAL), for the report. */
  temporalDescription: string;
  taskQueue: string;
  /** The floor server (bench/floors/server.ts): the unavoidable part of each benchmarked path ('' without floors). */
  floorUrl: string;
  /** The (first) worker child's own metrics (src/observability/worker-http.ts: payments_* counters). */
  workerMetricsUrl: string;
  /** Every worker child's metrics (the background worker's too), when there is more than one. */
  workerMetricsUrls: string[];
  /** The process ids of the workers that poll the task queue (BENCH_WORKERS of them): role `all`, or `interactive` in the split layout. */
  workerPids: number[];
  /** How the workers are laid out (StartOptions.workers). */
  workers: WorkerLayout;
  /** The child processes whose CPU each row reports apart (bench/support/proc-stat.ts, cpuByGroup); the worker's memory is measured by bench/open-checkouts.ts. */
  pids: { api: number; worker: number; background?: number; floor?: number };
  /** The worker child's workflow cache (`WORKER_MAX_CACHED_WORKFLOWS`), as its configuration reads it. */
  workerCacheSize: number;
  /** A direct pool on the benchmark database, for seeding and inspection (not for the measured path). */
  db: Db;
  /** The merchant onboarded through the admin API at start-up. */
  merchant: Merchant;
  settings: BenchSettings;
  /** Onboards another merchant through the admin API (scenarios that need their own data). */
  onboard(name: string, settings?: Record<string, unknown>): Promise<Merchant>;
  /** JSON over HTTP to the API under test (outside any measurement). */
  request<T = unknown>(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Start the floor server (default true; scenarios without floors can skip its start-up). */
  floors?: boolean;
  /** The workers' layout; default BENCH_WORKERS workers in role `all`. */
  workers?: WorkerLayout;
}

/**
 * `all`: BENCH_WORKERS worker processes polling both task queues and running the sweeps.
 * `split`, as `npm start` runs: BENCH_WORKERS `interactive` workers, and one `background` worker
 * (the background task queue and the sweeps) at OS priority `nice` (`nice -n`).
 */
export type WorkerLayout = { layout: 'all' } | { layout: 'split'; nice: number };

/** How many worker processes share the task queue (BENCH_WORKERS, default 1). */
export function benchWorkers(): number {
  const value = Number(process.env.BENCH_WORKERS ?? 1);
  if (!Number.isInteger(value) || value < 1 || value > 8) throw new Error(`BENCH_WORKERS must be an integer in 1..8 (got ${process.env.BENCH_WORKERS})`);
  return value;
}

const READY_TIMEOUT_MS = 180_000; // the worker bundles the workflows on start
const STOP_TIMEOUT_MS = 20_000;

/**
 * `onStop` receives the teardown function before anything starts, so a signal during start-up
 * can still tear down whatever did start (the teardown is idempotent).
 */
export async function startEnvironment(
  settings: BenchSettings,
  log: (line: string) => void,
  onStop?: (stop: () => Promise<void>) => void,
  options: StartOptions = {},
): Promise<BenchEnvironment> {
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    // Last started, first stopped; a failing step must not keep the others from running.
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => log(`teardown step failed: ${String(error)}`));
    }
  };
  onStop?.(stop);
  try {
    return await start(settings, log, cleanups, stop, options);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function start(
  settings: BenchSettings,
  log: (line: string) => void,
  cleanups: Array<() => Promise<void>>,
  stop: () => Promise<void>,
  options: StartOptions,
): Promise<BenchEnvironment> {
  log('creating the database');
  const databaseUrl = await createScratchDatabase('payments_bench');
  log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  cleanups.push(() => (process.env.KEEP_BENCH_DATABASE ? Promise.resolve() : dropDatabase(databaseUrl)));
  const db = createDb(databaseUrl, { max: 4 });
  cleanups.push(() => db.destroy());

  const executable = process.env.TEMPORAL_CLI_PATH;
  if (!executable) throw new Error('TEMPORAL_CLI_PATH is not set: run the benchmark with `npm run bench`');
  try {
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  } catch {
    // Already installed.
  }
  const kind = temporalKindFromEnv();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'payments-bench-temporal-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  log(`Temporal: ${kind.kind === 'address' ? kind.address : kind.kind}`);
  const temporal = await startTemporal(kind, executable, dataDir);
  cleanups.push(() => temporal.stop());
  const temporalAddress = temporal.address;
  const temporalClient = await connectClient(temporalAddress);
  cleanups.push(() => temporalClient.connection.close());

  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    WORKER_HTTP_PORT: '0',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ADMIN_TOKEN: adminToken,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // Production requires a mail server; no scenario invites anyone or resets a password, so none listens there.
    SMTP_URL: process.env.SMTP_URL ?? 'smtp://127.0.0.1:25',
    // Scenarios that receive webhooks listen on 127.0.0.1.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  };
  const workerCount = benchWorkers();
  const layout: WorkerLayout = options.workers ?? { layout: 'all' };
  const split = layout.layout === 'split';
  log(`starting the API and ${workerCount === 1 ? 'the worker' : `${workerCount} workers`}${split ? ` (interactive) and a background worker (nice ${layout.nice})` : ''} (child processes)`);
  const workerEnv = split ? { ...childEnv, WORKER_ROLE: 'interactive' } : childEnv;
  const [api, background, worker, ...moreWorkers] = await Promise.all([
    startChild('api', childEnv, cleanups),
    split ? startChild('worker', { ...childEnv, WORKER_ROLE: 'background' }, cleanups, layout.nice) : undefined,
    ...Array.from({ length: workerCount }, () => startChild('worker', workerEnv, cleanups)),
  ]);
  const workers = [worker!, ...moreWorkers];
  const baseUrl = `http://127.0.0.1:${api.port}`;
  const floorMerchant = randomBytes(4).toString('hex');
  const floor = options.floors === false ? undefined : await startFloorServer({ ...childEnv, FLOOR_MERCHANT_ID: `mer_floor${floorMerchant}` }, cleanups, cpuProfileArgs('floor'));
  const floorUrl = floor?.url ?? '';

  const request: BenchEnvironment['request'] = async (method, urlPath, options = {}) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + urlPath, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as never };
  };
  const onboard = async (name: string, merchantSettings?: Record<string, unknown>): Promise<Merchant> => {
    const res = await request<Merchant>('POST', '/admin/v1/merchants', {
      token: adminToken,
      body: { name, ...(merchantSettings ? { settings: merchantSettings } : {}) },
    });
    if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // The worker reports ready before its first polls reach the server, which /readyz checks.
  let readiness: unknown;
  await waitFor(async () => {
    const ready = await request<{ status: string }>('GET', '/readyz');
    readiness = ready.body;
    return ready.status === 200;
  }, 15_000, 'the API to be ready').catch(() => {
    throw new Error(`the API is not ready: ${JSON.stringify(readiness)}`);
  });
  const merchant = await onboard('Bench merchant');
  // The customer-create floor inserts under a merchant of its own (the foreign key needs one).
  if (floorUrl) await db('merchants').insert({ ...(await db('merchants').where({ id: merchant.id }).first()), id: `mer_floor${floorMerchant}` });

  return { baseUrl, adminToken, databaseUrl, temporalAddress, temporal: temporalClient, temporalDescription: temporal.describe, taskQueue, floorUrl, workerMetricsUrl: `http://127.0.0.1:${worker!.port}/metrics`, workerMetricsUrls: [...workers, ...(background ? [background] : [])].map((w) => `http://127.0.0.1:${w.port}/metrics`), workerPids: workers.map((w) => w.pid), workers: layout, pids: { api: api!.pid, worker: worker!.pid, ...(background ? { background: background.pid } : {}), ...(floor ? { floor: floor.pid } : {}) }, workerCacheSize: loadConfig(childEnv).worker.maxCachedWorkflows, db, merchant, settings, onboard, request, stop };
}

/**
 * BENCH_CPU_PROFILE=worker (or api, floor, or a list: api,worker,floor): V8 CPU profiles of those
 * children, written to BENCH_CPU_PROFILE_DIR (default /tmp/payments-bench-profiles) when they stop;
 * open them in Chrome DevTools.
 */
function cpuProfileArgs(role: ServiceRole | 'floor'): string[] {
  const roles = (process.env.BENCH_CPU_PROFILE ?? '').split(',');
  if (!roles.includes(role)) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR || '/tmp/payments-bench-profiles'}`];
}

/**
 * The compiled service process, run by plain node as `npm start` runs the service: under tsx,
 * source maps are on and every stack trace the workflow sandbox captures (one per promise) is
 * mapped, which made the worker measurably slower than in production. bench/run.sh compiles first.
 */
const SERVICE_PROCESS = path.resolve(__dirname, '../../dist/bench/support/service-process.js');

/**
 * Forks the compiled service process and waits (bounded) for it to report ready. With `nice`, under
 * `nice -n <nice>` as `npm start` starts the background worker: every thread of the process,
 * Temporal's and V8's included, runs at that priority (nice execs node, so the pid is node's).
 */
async function startChild(role: ServiceRole, env: NodeJS.ProcessEnv, cleanups: Array<() => Promise<void>>, nice?: number): Promise<{ port?: number; pid: number }> {
  if (!existsSync(SERVICE_PROCESS)) throw new Error(`${SERVICE_PROCESS} is missing: run the benchmarks with npm run bench, which compiles first`);
  const child = fork(SERVICE_PROCESS, [role], {
    cwd: path.resolve(__dirname, '../..'),
    env,
    ...(nice === undefined ? { execArgv: cpuProfileArgs(role) } : { execPath: 'nice', execArgv: ['-n', String(nice), process.execPath, ...cpuProfileArgs(role)] }),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  cleanups.push(() => stopChild(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${role} did not become ready within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited during start-up (code ${code})`));
    };
    child.once('exit', onExit);
    child.on('message', (message: ServiceMessage) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (message.type === 'ready') resolve({ port: message.port, pid: child.pid! });
      else reject(new Error(`${role} failed to start: ${message.error}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send('stop');
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
