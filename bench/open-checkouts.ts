/**
 * 10,000 open checkouts held by one worker: how fast they are created, the worker's memory
 * (RSS) while it holds them, and how late each expiry is recorded, with every checkout set to
 * expire within one minute. Against the Temporal `npm start` runs (BENCH_TEMPORAL, as bench/main.ts).
 *
 *   BENCH_SCRIPT=bench/open-checkouts.ts npm run bench     (compiles, bundles, finds the Temporal CLI)
 *   OPEN_CHECKOUTS=10000  OPEN_CONCURRENCY=10  OPEN_LEAD_SECONDS=300  OPEN_WINDOW_SECONDS=60
 *
 * The k-th checkout is made to expire at start + LEAD + WINDOW × k/N: before each batch the
 * merchant's checkout_expiry_seconds is set (admin API) so that creation time + expiry lands there.
 * LEAD must exceed the creation time, or the earliest expiries fall inside creation (reported).
 * Reports RSS before, when creation is done, with all open (just before the first expiry, once the
 * worker has run every first task; a delayed start, the default, runs none before its deadline),
 * per cached workflow and at peak, and the worker's CPU per
 * expiry split by thread (main, Temporal's core, the sandbox thread with V8's GC helpers).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { freePort } from '../test/support/free-port';
import { startEnvironment } from './support/environment';
import { statCpuSeconds, threadCpu } from './support/proc-stat';
import { percentile } from './support/samples';
import { DELAYED_START, temporalKindFromEnv } from './support/temporal';

const N = Number(process.env.OPEN_CHECKOUTS ?? 10_000);
const CONCURRENCY = Number(process.env.OPEN_CONCURRENCY ?? 10);
const LEAD_S = Number(process.env.OPEN_LEAD_SECONDS ?? 300);
const WINDOW_S = Number(process.env.OPEN_WINDOW_SECONDS ?? 60);
const BATCH = 100;
const log = (line: string) => process.stderr.write(`\x1b[1m[open-checkouts]\x1b[0m ${line}\n`);

function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * Where the worker's CPU went between two samples: its main thread (activities, local activities,
 * the SDK's bridge), Temporal's Rust core, and the other threads node names after itself: the
 * workflow sandbox thread and V8's GC helpers. Core's share is split: its one workflow-processing
 * thread (every run's state machines, one input at a time) and its tokio runtime (polls, RPCs).
 */
function cpuByThreadKind(pid: number, before: Map<string, { name: string; seconds: number }>, after: Map<string, { name: string; seconds: number }>): Record<'main' | 'coreRuns' | 'coreRuntime' | 'sandboxAndGc', number> {
  const kinds = { main: 0, coreRuns: 0, coreRuntime: 0, sandboxAndGc: 0 };
  for (const [tid, { name, seconds }] of after) {
    const used = seconds - (before.get(tid)?.seconds ?? 0);
    if (tid === String(pid)) kinds.main += used;
    else if (name.startsWith('workflow-proces')) kinds.coreRuns += used;
    else if (name.startsWith('tokio')) kinds.coreRuntime += used;
    else kinds.sandboxAndGc += used;
  }
  return kinds;
}

/**
 * Workflow tasks the worker has run so far, from the SDK's own Prometheus metrics (the count of
 * `workflow_task_execution_latency`, summed over its labels).
 */
async function workflowTasksRun(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = [...text.matchAll(/^temporal_workflow_task_execution_latency\w*_count(?:\{[^}]*\})? (\d+(?:\.\d+)?)/gm)];
  // Before its first task the SDK has no such line yet; later it always has one.
  return counts.reduce((total, match) => total + Number(match[1]), 0);
}

/** How many expiries the worker recorded by its workflows' timers and by its sweep (its own metrics). */
async function expiriesRecordedBy(metricsUrl: string): Promise<{ timer: number; sweep: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const count = (by: string) => Number(new RegExp(`^payments_checkouts_expired_total\\{by="${by}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { timer: count('timer'), sweep: count('sweep') };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const loadAverage = os.loadavg()[0]!;
  let stop: (() => Promise<void>) | null = null;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void (stop ?? (async () => undefined))().finally(() => process.exit(130)));
  }
  // The worker serves the SDK's metrics, so the benchmark sees when it has run every first task.
  const metricsPort = await freePort();
  process.env.TEMPORAL_METRICS_BIND_ADDRESS = `127.0.0.1:${metricsPort}`;
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const env = await startEnvironment({ duration: 0, warmup: 0, connections: [CONCURRENCY], rounds: 1, steadyRounds: 1 }, log, (s) => (stop = s), { floors: false });
  try {
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(rssMiB(env.pids.worker)), 1_000);
    const rssBefore = rssMiB(env.pids.worker);
    const customer = await env.request<{ id: string }>('POST', '/api/v1/customers', {
      token: env.merchant.api_key,
      body: { email: `open.${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });

    const tasksBefore = await workflowTasksRun(metricsUrl);
    const start = Date.now();
    const target = (k: number) => start + (LEAD_S + (WINDOW_S * k) / N) * 1000;
    let created = 0;
    let failures = 0;
    for (let batch = 0; batch < N; batch += BATCH) {
      const expiry = Math.max(1, Math.round((target(batch) - Date.now()) / 1000));
      await env.request('PATCH', `/admin/v1/merchants/${env.merchant.id}/settings`, { token: env.adminToken, body: { checkout_expiry_seconds: expiry } });
      const size = Math.min(BATCH, N - batch);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, size) }, async () => {
          while (next < size) {
            next++;
            const res = await env.request('POST', '/api/v1/checkouts', {
              token: env.merchant.api_key,
              body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: 1000 },
            });
            if (res.status === 201) created++;
            else failures++;
          }
        }),
      );
      if ((batch / BATCH) % 10 === 0) log(`${created} created (${(created / ((Date.now() - start) / 1000)).toFixed(0)}/s), worker RSS ${rssMiB(env.pids.worker).toFixed(0)} MiB`);
    }
    const creationSeconds = (Date.now() - start) / 1000;
    const rssCreated = rssMiB(env.pids.worker);
    log(`created ${created} in ${creationSeconds.toFixed(1)} s${DELAYED_START ? '' : '; waiting for the worker to run every first task'}`);
    // The API answers once a workflow is started, and the worker falls behind with the first tasks
    // (each sets the expiry timer): the rate at which checkouts are both created and running.
    // Bounded by the first deadline, so a renamed metric cannot hang the benchmark.
    // A delayed start (the default) runs no task before the deadline: nothing to wait for.
    const firstDeadline = start + LEAD_S * 1000;
    while (!DELAYED_START && (await workflowTasksRun(metricsUrl)) - tasksBefore < created && Date.now() < firstDeadline) await new Promise((r) => setTimeout(r, 250));
    const caughtUp = !DELAYED_START && Date.now() < firstDeadline;
    const runningSeconds = caughtUp ? (Date.now() - start) / 1000 : NaN;
    if (DELAYED_START) log(`workflows start delayed until their deadlines (${(await workflowTasksRun(metricsUrl)) - tasksBefore} workflow tasks run so far); waiting for the expiries`);
    else log(caughtUp ? `every first task run ${runningSeconds.toFixed(1)} s after the start; waiting for the expiries` : 'the worker had not counted every first task by the first deadline');

    const { rows: range } = (await env.db.raw(
      `SELECT min(expires_at) AS first, max(expires_at) AS last FROM checkouts WHERE merchant_id = ?`,
      [env.merchant.id],
    )) as { rows: Array<{ first: Date; last: Date }> };
    // The API answers once a workflow is started; the worker runs each one's first task later, and
    // under creation load it falls behind. "All open" is sampled just before the first expiry, when
    // it has caught up, so the CPU figures below count the expiries alone.
    const openAt = range[0]!.first.getTime() - 1_000;
    if (openAt > Date.now()) await new Promise((r) => setTimeout(r, openAt - Date.now()));
    const rssOpen = rssMiB(env.pids.worker);
    const cpuOpen = cpuSeconds(env.pids.worker);
    const threadsOpen = threadCpu(env.pids.worker);
    const deadline = range[0]!.last.getTime() + 300_000;
    let expired = 0;
    while (Date.now() < deadline) {
      expired = Number((await env.db('events').where({ merchant_id: env.merchant.id, type: 'checkout.expired' }).count({ n: '*' }))[0]!.n);
      if (expired >= created) break;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const expirySeconds = (Date.now() - openAt) / 1000;
    const cpuExpiry = cpuSeconds(env.pids.worker) - cpuOpen;
    const byThread = cpuByThreadKind(env.pids.worker, threadsOpen, threadCpu(env.pids.worker));
    const recordedBy = await expiriesRecordedBy(env.workerMetricsUrl);
    // The expiries the sweep recorded still have their workflow's timer to run (it finds the
    // checkout expired and the workflow ends): wait for those tasks too, bounded, to see when the
    // worker caught up with every timer and what that cost.
    log('every expiry recorded; waiting for the worker to run every timer task');
    const lastDeadline = range[0]!.last.getTime();
    const drainDeadline = Date.now() + 600_000;
    // Undelayed, a checkout's workflow runs a first task and a timer task; delayed, one task at its deadline.
    const tasksPerCheckout = DELAYED_START ? 1 : 2;
    while ((await workflowTasksRun(metricsUrl)) - tasksBefore < tasksPerCheckout * created && Date.now() < drainDeadline) await new Promise((r) => setTimeout(r, 1_000));
    const drained = Date.now() < drainDeadline;
    const drainedAfter = (Date.now() - lastDeadline) / 1000;
    const cpuAll = cpuSeconds(env.pids.worker) - cpuOpen;
    clearInterval(sampler);
    const cached = Math.min(created, env.workerCacheSize);
    const loadAfter = os.loadavg()[0]!;
    const { rows } = (await env.db.raw(
      `SELECT extract(epoch FROM (e.created_at - c.expires_at)) * 1000 AS late_ms
         FROM events e JOIN checkouts c ON c.id = e.checkout_id
        WHERE e.merchant_id = ? AND e.type = 'checkout.expired'`,
      [env.merchant.id],
    )) as { rows: Array<{ late_ms: string }> };
    const late = rows.map((r) => Number(r.late_ms)).sort((a, b) => a - b);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

    console.log(`\n${N} open checkouts (${created} created, ${failures} failed) on ${env.temporalDescription}; ${os.cpus().length} CPUs, load ${loadAverage.toFixed(2)} at start, ${loadAfter.toFixed(2)} at the end\n`);
    console.log('| Measure | Value |\n|---|---:|');
    console.log(`| creation rate (c=${CONCURRENCY}) | ${(created / creationSeconds).toFixed(0)} checkouts/s (${creationSeconds.toFixed(0)} s) |`);
    console.log(`| … created and running (every first task run) | ${DELAYED_START ? 'none runs before its deadline (delayed start)' : caughtUp ? `${(created / runningSeconds).toFixed(0)} checkouts/s (${runningSeconds.toFixed(0)} s)` : 'not before the first deadline'} |`);
    console.log(`| expiries spread over | ${s(range[0]!.last.getTime() - range[0]!.first.getTime())} |`);
    const perExpiry = (seconds: number) => `${((seconds * 1000) / Math.max(1, late.length)).toFixed(1)} ms`;
    console.log(`| worker RSS: before / creation done / all open / peak | ${rssBefore.toFixed(0)} / ${rssCreated.toFixed(0)} / ${rssOpen.toFixed(0)} / ${Math.max(...rss).toFixed(0)} MiB |`);
    if (!DELAYED_START) console.log(`| worker RSS per cached workflow (${cached} cached) | ${(((rssOpen - rssBefore) * 1024) / Math.max(1, cached)).toFixed(0)} KiB |`);
    console.log(`| worker CPU from all open to the last expiry | ${cpuExpiry.toFixed(1)} s (${perExpiry(cpuExpiry)} per expiry) |`);
    console.log(`| … per expiry by thread: main / Temporal core / sandbox and GC | ${perExpiry(byThread.main)} / ${perExpiry(byThread.coreRuns + byThread.coreRuntime)} / ${perExpiry(byThread.sandboxAndGc)} |`);
    // One thread runs every workflow's state machines: near 100 % busy, it is the worker's limit.
    const busy = `${((100 * byThread.coreRuns) / expirySeconds).toFixed(0)} % busy over ${expirySeconds.toFixed(0)} s`;
    console.log(`| … Temporal core: its workflow-processing thread / its tokio threads | ${perExpiry(byThread.coreRuns)} (${busy}) / ${perExpiry(byThread.coreRuntime)} |`);
    console.log(`| expiries recorded | ${late.length} of ${created}: ${recordedBy.timer} by their workflow's timer, ${recordedBy.sweep} by the sweep of late timers |`);
    console.log(`| every timer task run (the workflows ended) | ${drained ? `${drainedAfter.toFixed(0)} s after the last deadline; worker CPU from all open: ${cpuAll.toFixed(1)} s (${perExpiry(cpuAll)} per checkout)` : 'not within 10 minutes'} |`);
    console.log(`| expiry lateness p50 / p99 / max | ${s(percentile(late, 50))} / ${s(percentile(late, 99))} / ${s(late[late.length - 1] ?? NaN)} |`);
    if (range[0]!.first.getTime() < start + creationSeconds * 1000) log('warning: some checkouts expired while others were still being created (raise OPEN_LEAD_SECONDS)');
  } finally {
    await stop!();
  }
}

log(`Temporal: ${JSON.stringify(temporalKindFromEnv())}`);
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
