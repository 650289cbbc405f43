/**
 * What eager workflow start would save on checkout create. Three ways of starting a workflow,
 * in alternating rounds at the same concurrency against one dev server (as `npm start` runs it):
 *
 *   bare       workflow.start of a workflow no worker runs (checkout create's floor)
 *   polled     workflow.start; a worker in this process polls and runs its first task
 *              (a timer, like a checkout's expiry)
 *   eager      the same, with requestEagerStart: the server hands the first task back in the
 *              start's response to the worker sharing this client's connection
 *
 * Each round ends only when every started workflow's first task has run, so its CPU (this
 * process, which is client and worker, plus the Temporal server's, from /proc) is the whole cost.
 *
 *   npx tsx bench/eager-start/main.ts   (EAGER_SECONDS=8 EAGER_ROUNDS=3 EAGER_CONNECTIONS=10 EAGER_MAX_CACHED_WORKFLOWS=1000)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, type InjectedSinks } from '@temporalio/worker';
import { freePort } from '../../test/support/free-port';
import { statCpuSeconds } from '../support/proc-stat';
import { runClosedLoop } from '../support/samples';
import { temporalCliPath, FAST_SQLITE_ARGS } from '../support/temporal';
import type { FirstTaskSinks } from './workflows';

const seconds = Number(process.env.EAGER_SECONDS ?? 8);
const rounds = Number(process.env.EAGER_ROUNDS ?? 3);
const connections = Number(process.env.EAGER_CONNECTIONS ?? 10);
/** The service worker's default cache (WORKER_MAX_CACHED_WORKFLOWS). */
const maxCachedWorkflows = Number(process.env.EAGER_MAX_CACHED_WORKFLOWS ?? 1000);
type Mode = 'bare' | 'polled' | 'eager';

/** utime + stime of a process and its threads, in ms. */
const cpuMs = (pid: number): number => statCpuSeconds(`/proc/${pid}/stat`) * 1000;

async function main(): Promise<void> {
  Runtime.install({ logger: undefined });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payments-eager-'));
  const port = await freePort();
  const server = spawn(
    temporalCliPath(),
    ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error', '--db-filename', `${dir}/t.db`, ...FAST_SQLITE_ARGS],
    { stdio: 'ignore' },
  );
  try {
    const address = `127.0.0.1:${port}`;
    let connection: NativeConnection | undefined;
    for (let i = 0; i < 100 && !connection; i++) {
      connection = await NativeConnection.connect({ address }).catch(async () => {
        await new Promise((r) => setTimeout(r, 200));
        return undefined;
      });
    }
    if (!connection) throw new Error('the dev server did not start');
    const taskQueue = `eager-${randomBytes(4).toString('hex')}`;
    let firstTasks = 0;
    const sinks: InjectedSinks<FirstTaskSinks> = { firstTask: { done: { fn: () => void firstTasks++, callDuringReplay: false } } };
    const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./workflows'), sinks, maxCachedWorkflows });
    const running = worker.run();
    const client = new Client({ connection });

    const totals: Record<Mode, { starts: number; eager: number; ms: number; processCpu: number; serverCpu: number }> = {
      bare: { starts: 0, eager: 0, ms: 0, processCpu: 0, serverCpu: 0 },
      polled: { starts: 0, eager: 0, ms: 0, processCpu: 0, serverCpu: 0 },
      eager: { starts: 0, eager: 0, ms: 0, processCpu: 0, serverCpu: 0 },
    };
    for (let round = 0; round < rounds; round++) {
      for (const mode of ['bare', 'polled', 'eager'] as const) {
        const before = { process: process.cpuUsage(), server: cpuMs(server.pid!), tasks: firstTasks };
        let starts = 0;
        let eager = 0;
        await runClosedLoop(connections, seconds * 1000, async () => {
          const handle = await client.workflow.start('timerWorkflow', {
            taskQueue: mode === 'bare' ? `${taskQueue}-nobody` : taskQueue,
            workflowId: `${mode}-${randomBytes(8).toString('hex')}`,
            requestEagerStart: mode === 'eager',
          });
          starts++;
          if (handle.eagerlyStarted) eager++;
        });
        const wanted = before.tasks + (mode === 'bare' ? 0 : starts);
        const deadline = Date.now() + 120_000;
        while (firstTasks < wanted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const used = process.cpuUsage(before.process);
        const t = totals[mode];
        t.starts += starts;
        t.eager += eager;
        t.ms += seconds * 1000;
        t.processCpu += (used.user + used.system) / 1000;
        t.serverCpu += cpuMs(server.pid!) - before.server;
        console.error(`round ${round + 1} ${mode}: ${(starts / seconds).toFixed(0)} starts/s, ${eager} eager, first tasks ${firstTasks - before.tasks}`);
      }
    }
    console.log(`\nStarts at c=${connections}, ${rounds} alternating rounds of ${seconds} s, worker cache ${maxCachedWorkflows}; dev server on a SQLite file (WAL); ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load ${os.loadavg()[0]!.toFixed(2)}\n`);
    console.log('| Start | Starts/s | Eagerly started | CPU per start: client + worker | Temporal | all |\n|---|---:|---:|---:|---:|---:|');
    for (const mode of ['bare', 'polled', 'eager'] as const) {
      const t = totals[mode];
      const per = (x: number) => (x / t.starts).toFixed(2);
      console.log(`| ${mode} | ${((t.starts * 1000) / t.ms).toFixed(0)} | ${t.eager} | ${per(t.processCpu)} ms | ${per(t.serverCpu)} ms | ${per(t.processCpu + t.serverCpu)} ms |`);
    }
    worker.shutdown();
    await running;
    await connection.close();
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
