/**
 * What the size of a worker's workflow cache costs Temporal's core, apart from our workflows.
 *
 * The core runs every cached workflow's state machines on one thread ("workflow-processing") and,
 * after each input, walks its whole cache (sdk-core's `reconcile_buffered`), so a bigger cache
 * costs every input more CPU. This holds SCAN_WORKFLOWS trivial workflows open (bench/cache-scan/) and
 * sends each an update in turn, once to warm up and SCAN_UPDATES times measured, with one worker
 * per cache size in SCAN_CACHES. In turn is the order checkouts expire in: a cache smaller than
 * the workflows misses every time and replays, a cache of them all never does. Per update it
 * reports the process's CPU and that one thread's. Run it again after an SDK upgrade: once the
 * scan is gone, the thread's CPU per update stops growing with the cache.
 *
 *   BENCH_SCRIPT=bench/cache-scan.ts npm run bench
 *   SCAN_WORKFLOWS=4000 SCAN_CACHES=500,4000 SCAN_UPDATES=4000 SCAN_CONCURRENCY=10
 */
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { statCpuSeconds, threadCpu } from './support/proc-stat';
import { connectClient, startTemporal, temporalCliPath } from './support/temporal';
import { touchUpdate } from './cache-scan/workflows';
import { runScript } from './support/run-script';

const N = Number(process.env.SCAN_WORKFLOWS ?? 4000);
const CACHES = (process.env.SCAN_CACHES ?? `${Math.max(2, Math.round(N / 8))},${N}`).split(',').map(Number);
const UPDATES = Number(process.env.SCAN_UPDATES ?? N);
const CONCURRENCY = Number(process.env.SCAN_CONCURRENCY ?? 10);
const executable = temporalCliPath();

/** Thread ids of this process's Temporal core workflow-processing threads (one per worker). */
function coreThreads(): Set<string> {
  return new Set([...threadCpu(process.pid)].filter(([, thread]) => thread.name.startsWith('workflow-proces')).map(([tid]) => tid));
}

/** Runs `count` operations numbered 0…count-1, CONCURRENCY at a time, in order. */
async function inTurn(count: number, operation: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) await operation(next++);
  }));
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payments-cache-scan-'));
  const server = await startTemporal({ kind: 'dev-memory' }, executable, dir);
  const client = await connectClient(server.address);
  const connection = await NativeConnection.connect({ address: server.address });
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./cache-scan/workflows'), logger: new DefaultLogger('WARN') });
  const rows: string[] = [];
  try {
    for (const cache of CACHES) {
      const taskQueue = `cache-scan-${cache}-${Date.now()}`;
      const before = coreThreads();
      const worker = await Worker.create({ connection, taskQueue, workflowBundle: { code }, maxCachedWorkflows: cache, maxConcurrentWorkflowTaskExecutions: Math.min(cache, 40) });
      const running = worker.run();
      const [tid] = [...coreThreads()].filter((t) => !before.has(t));
      if (!tid) throw new Error('no workflow-processing thread of the new worker found');
      const ids = Array.from({ length: N }, (_, i) => `${taskQueue}-${i}`);
      await inTurn(N, (i) => client.workflow.start('cachedWaiter', { taskQueue, workflowId: ids[i]! }));
      await inTurn(N, (i) => client.workflow.getHandle(ids[i]!).executeUpdate(touchUpdate));
      const rss = process.memoryUsage().rss / 2 ** 20;
      const cpu0 = process.cpuUsage();
      const thread0 = statCpuSeconds(`/proc/self/task/${tid}/stat`);
      const t0 = performance.now();
      await inTurn(UPDATES, (i) => client.workflow.getHandle(ids[i % N]!).executeUpdate(touchUpdate));
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const thread = statCpuSeconds(`/proc/self/task/${tid}/stat`) - thread0;
      const perUpdate = (s: number) => `${((s * 1000) / UPDATES).toFixed(2)} ms`;
      rows.push(
        `| ${cache} | ${(UPDATES / seconds).toFixed(0)} | ${perUpdate((cpu.user + cpu.system) / 1e6)} | ${perUpdate(thread)} | ${((100 * thread) / seconds).toFixed(0)} % | ${rss.toFixed(0)} MiB |`,
      );
      console.error(rows[rows.length - 1]);
      worker.shutdown();
      await running;
    }
    console.log(`\n${N} open workflows on ${server.describe}, ${UPDATES} updates in turn at c=${CONCURRENCY}; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}\n`);
    console.log('| Cache | Updates/s | Process CPU per update | Core workflow-processing thread per update | that thread busy | RSS after warm-up |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await connection.close();
    await client.connection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runScript(main);
