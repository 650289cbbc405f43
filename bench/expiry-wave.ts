/**
 * The expiry wave: do live payments keep their speed while thousands of abandoned checkouts expire?
 *
 *   BENCH_SCRIPT=bench/expiry-wave.ts npm run bench                 (BENCH_TEMPORAL=cluster too)
 *   WAVE_CHECKOUTS=5000  WAVE_CONCURRENCY=10  WAVE_EXPIRY_SECONDS=90  WAVE_LIVE_CONNECTIONS=4
 *   WAVE_LEAD_SECONDS=10  WAVE_TAIL_SECONDS=10  BENCH_WARMUP=3  BENCH_OUTPUT=bench/results/expiry-wave.md
 *   WAVE_NEIGHBOURS=0   CPU-bound neighbour processes (each a busy loop at normal priority) running
 *                       from before the live loop to its end, to measure the wave on a shared machine
 *   WAVE_BESIDE='<command>'  a shell command run from the repository's root over the same span (its own
 *                       process group, stopped at the end), e.g. the property suite:
 *                       WAVE_BESIDE='source scripts/lib.sh && prepare_test_run && npx jest test/property/stateful.test.ts'
 *   WAVE_LAYOUT=split   the workers as `npm start` runs them: an interactive worker (BENCH_WORKERS of
 *                       them) and a background worker at `nice -n WAVE_BACKGROUND_NICE` (default 10);
 *                       `all`: BENCH_WORKERS workers each polling both task queues, to compare
 *
 * Merchant A (the wave) gets WAVE_CHECKOUTS checkouts as fast as the API takes them, each expiring
 * WAVE_EXPIRY_SECONDS after its creation (the admin settings API's checkout_expiry_seconds), and
 * none is paid; checkout.expired is enabled, so every expiry also delivers a webhook to a local
 * receiver. Merchant B (live payments) runs a closed loop of WAVE_LIVE_CONNECTIONS customers, each
 * creating a checkout (not timed) and paying it with a succeeding sandbox card (timed), from
 * before the wave is created until every wave checkout has expired and a little after.
 *
 * An attempt counts before the wave if it ended before the first wave deadline, during it if it
 * overlapped the window from that deadline to the last expiry recorded, and after it otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEnvironment, type BenchEnvironment, type WorkerLayout } from './support/environment';
import { commit, describeMachine, machineLine } from './support/report';
import { runScript } from './support/run-script';
import { percentile, runClosedLoop } from './support/samples';
import { EXPERIMENT_ARGS, temporalKindFromEnv } from './support/temporal';
import { startWebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';
import { expiriesRecordedBy } from './support/worker-metrics';
import { CPU_GROUPS, cpuByGroup, cpuSince, type CpuGroup } from './support/proc-stat';

function setting(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer in ${min}..${max} (got ${raw})`);
  return value;
}

const N = setting('WAVE_CHECKOUTS', 5000, 1);
const CONCURRENCY = setting('WAVE_CONCURRENCY', 10, 1, 1000);
const EXPIRY_S = setting('WAVE_EXPIRY_SECONDS', 90, 1, 86_400);
const LIVE = setting('WAVE_LIVE_CONNECTIONS', 4, 1, 1000);
const LEAD_S = setting('WAVE_LEAD_SECONDS', 10, 0);
const TAIL_S = setting('WAVE_TAIL_SECONDS', 10, 0);
const NEIGHBOURS = setting('WAVE_NEIGHBOURS', 0, 0, 64);
const BESIDE = process.env.WAVE_BESIDE?.trim() || undefined;
const LAYOUT = process.env.WAVE_LAYOUT || 'split';
if (LAYOUT !== 'split' && LAYOUT !== 'all') throw new Error(`WAVE_LAYOUT must be split or all (got ${LAYOUT})`);
const WORKERS: WorkerLayout = LAYOUT === 'split' ? { layout: 'split', nice: setting('WAVE_BACKGROUND_NICE', 10, 0, 19) } : { layout: 'all' };
const WARMUP_S = setting('BENCH_WARMUP', 3, 0);
const OUTPUT = path.resolve(__dirname, '..', process.env.BENCH_OUTPUT || 'bench/results/expiry-wave.md');
/** The issue's bound for any live attempt during a wave. */
const SLOW_MS = 2_000;
/** How long past the last deadline the benchmark waits for expiries, and then for their webhooks. */
const EXPIRY_WAIT_MS = 300_000;
const DELIVERY_WAIT_MS = 120_000;
const SUCCEEDING_CARD = { type: 'credit_card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' } };

const log = (line: string) => process.stderr.write(`\x1b[1m[expiry-wave]\x1b[0m ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** One live attempt: when it was sent and answered (ms since the epoch), and whether it succeeded. */
interface Attempt {
  started: number;
  ended: number;
  ok: boolean;
}

async function newCustomer(env: BenchEnvironment, apiKey: string, label: string): Promise<string> {
  const res = await env.request<{ id: string }>('POST', '/api/v1/customers', {
    token: apiKey,
    body: { email: `wave.${label}.${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
  });
  if (res.status !== 201) throw new Error(`customer create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** A fresh checkout of the live merchant (not timed), then one attempt with a succeeding card (timed). */
async function liveAttempt(env: BenchEnvironment, apiKey: string, customerId: string): Promise<Attempt | null> {
  const checkout = await env
    .request<{ id: string; client_secret: string }>('POST', '/api/v1/checkouts', { token: apiKey, body: { customer_id: customerId, type: 'deposit', fixed_amount_cents: 1000 } })
    .catch(() => null);
  if (checkout?.status !== 201) return null;
  const started = Date.now();
  try {
    const res = await fetch(`${env.baseUrl}/wallet/v1/checkouts/${checkout.body.id}/attempts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-secret': checkout.body.client_secret },
      body: JSON.stringify({ payment_method: SUCCEEDING_CARD }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = (await res.json()) as { charge?: { status: string } };
    return { started, ended: Date.now(), ok: res.status === 201 && body.charge?.status === 'succeeded' };
  } catch {
    return { started, ended: Date.now(), ok: false };
  }
}

interface WaveState {
  open: number;
  expired: number;
  firstDeadline: number;
  lastDeadline: number;
  /** The latest expiry recorded (checkouts.updated_at of an expired checkout), ms since the epoch. */
  lastExpiry: number;
}

async function waveState(env: BenchEnvironment): Promise<WaveState> {
  const { rows } = (await env.db.raw(
    `SELECT count(*) FILTER (WHERE state = 'open') AS open, count(*) FILTER (WHERE state = 'expired') AS expired,
            min(expires_at) AS first, max(expires_at) AS last, max(updated_at) FILTER (WHERE state = 'expired') AS last_expiry
       FROM checkouts WHERE merchant_id = ?`,
    [env.merchant.id],
  )) as { rows: Array<{ open: string; expired: string; first: Date; last: Date; last_expiry: Date | null }> };
  const row = rows[0]!;
  return { open: Number(row.open), expired: Number(row.expired), firstDeadline: row.first.getTime(), lastDeadline: row.last.getTime(), lastExpiry: row.last_expiry?.getTime() ?? NaN };
}

/** n, p50, p99, max and attempts over SLOW_MS of a window's successful attempts; `failed` counts the others. */
function summarize(attempts: Attempt[]): { n: number; p50: number; p99: number; max: number; slow: number; failed: number } {
  const ms = attempts.filter((a) => a.ok).map((a) => a.ended - a.started).sort((a, b) => a - b);
  return { n: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.at(-1) ?? NaN, slow: ms.filter((m) => m > SLOW_MS).length, failed: attempts.length - ms.length };
}

/** The report's account of the workers: how many, which roles, at which priority. */
function workersLine(env: BenchEnvironment): string {
  const n = env.workerPids.length;
  const many = n === 1 ? '' : ' (BENCH_WORKERS)';
  if (env.workers.layout === 'all') return `${n} worker process${n === 1 ? '' : 'es'}${many}, each polling both task queues and running the sweeps (WAVE_LAYOUT=all)`;
  return `${n} interactive worker process${n === 1 ? '' : 'es'}${many} on the task queue, and one background worker on the background task queue running the sweeps, at \`nice -n ${env.workers.nice}\` (WAVE_LAYOUT=split, as \`npm start\`)`;
}

const msText = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '–');
const sText = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–');

/** What ran beside the wave, for the report. */
function neighbourLine(): string {
  const parts = [
    ...(NEIGHBOURS ? [`${NEIGHBOURS} CPU-bound process${NEIGHBOURS === 1 ? '' : 'es'} (a busy loop each, normal priority) from the live loop's start to its end (WAVE_NEIGHBOURS)`] : []),
    ...(BESIDE ? [`\`${BESIDE}\` over the same span (WAVE_BESIDE)`] : []),
  ];
  return parts.length ? parts.join('; ') : 'none started by the benchmark';
}

/** Stops the neighbours, and each command run beside the wave with its whole process group. */
function stopNeighbours(neighbours: ChildProcess[]): void {
  for (const neighbour of neighbours) {
    if (neighbour.pid === undefined || neighbour.exitCode !== null) continue;
    try {
      process.kill(-neighbour.pid, 'SIGKILL');
    } catch {
      neighbour.kill('SIGKILL');
    }
  }
}

/** Where the machine's CPU went while the wave expired: seconds and cores by process group ("other" holds the neighbours). */
function cpuTable(from: { at: number; cpu: Record<CpuGroup, number> } | null, to: { at: number; cpu: Record<CpuGroup, number> } | null): string[] {
  if (!from || !to) return [];
  const used = cpuSince(from.cpu, to.cpu);
  const seconds = (to.at - from.at) / 1000;
  const groups = CPU_GROUPS.filter((g) => g !== 'floor' && (g !== 'background' || WORKERS.layout === 'split'));
  return [
    `CPU over ${seconds.toFixed(0)} s of the wave, by process (cores used on average; "other" includes the neighbours):`,
    '',
    `| ${groups.join(' | ')} | all |`,
    `|${groups.map(() => '---:').join('|')}|---:|`,
    `| ${groups.map((g) => (used[g] / seconds).toFixed(2)).join(' | ')} | ${(groups.reduce((n, g) => n + used[g], 0) / seconds).toFixed(2)} |`,
    '',
  ];
}

async function main(): Promise<void> {
  const loadAverage = os.loadavg()[0] ?? 0;
  const startedAt = new Date();
  let stop: (() => Promise<void>) | null = null;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void (stop ?? (async () => undefined))().finally(() => process.exit(130)));
  }
  const expiredWebhooks = new Map<string, ReceivedWebhook>();
  let deliveries = 0;
  const receiver = await startWebhookReceiver((webhook) => {
    if (webhook.type !== 'checkout.expired') return;
    deliveries++;
    if (!expiredWebhooks.has(webhook.eventId)) expiredWebhooks.set(webhook.eventId, webhook);
  });
  let liveDone = false;
  const neighbours: ChildProcess[] = [];
  const env = await startEnvironment({ duration: 0, warmup: WARMUP_S, connections: [LIVE], rounds: 1, steadyRounds: 1 }, log, (s) => (stop = s), { floors: false, workers: WORKERS });
  try {
    const machine = await describeMachine(env.db, loadAverage);
    log(`machine: ${machineLine(machine)}`);
    const waveSettings = { checkout_expiry_seconds: EXPIRY_S, webhook_url: receiver.url, enabled_events: ['checkout.expired'] };
    const patched = await env.request('PATCH', `/admin/v1/merchants/${env.merchant.id}/settings`, { token: env.adminToken, body: waveSettings });
    if (patched.status !== 200) throw new Error(`settings of the wave's merchant refused: ${patched.status} ${JSON.stringify(patched.body)}`);
    const liveMerchant = await env.onboard('Bench live merchant');
    const waveCustomer = await newCustomer(env, env.merchant.api_key, 'a');
    const liveCustomer = await newCustomer(env, liveMerchant.api_key, 'b');

    for (let i = 0; i < NEIGHBOURS; i++) neighbours.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    if (NEIGHBOURS) log(`${NEIGHBOURS} CPU-bound neighbour process${NEIGHBOURS === 1 ? '' : 'es'} running`);
    if (BESIDE) {
      neighbours.push(spawn('bash', ['-c', BESIDE], { cwd: path.resolve(__dirname, '..'), stdio: 'ignore', detached: true }));
      log(`running beside the wave: ${BESIDE}`);
    }
    const attempts: Attempt[] = [];
    let liveFailures = 0;
    const liveLoop = runClosedLoop(
      LIVE,
      Number.MAX_SAFE_INTEGER,
      async () => {
        const attempt = await liveAttempt(env, liveMerchant.api_key, liveCustomer);
        if (attempt) attempts.push(attempt);
        else liveFailures++;
      },
      () => liveDone,
    );
    await sleep(WARMUP_S * 1000);
    const measuredFrom = Date.now();
    log(`live payments running (${LIVE} connections); the wave starts in ${LEAD_S} s`);
    await sleep(LEAD_S * 1000);

    const creationStart = Date.now();
    let issued = 0;
    let created = 0;
    let creationFailures = 0;
    await runClosedLoop(
      CONCURRENCY,
      Math.max(60_000, N * 1000),
      async () => {
        issued++;
        const res = await env
          .request('POST', '/api/v1/checkouts', { token: env.merchant.api_key, body: { customer_id: waveCustomer, type: 'deposit', fixed_amount_cents: 1000 } })
          .catch(() => ({ status: 0 }));
        if (res.status === 201) created++;
        else creationFailures++;
      },
      () => issued >= N,
    );
    const creationEnd = Date.now();
    log(`created ${created} checkouts in ${((creationEnd - creationStart) / 1000).toFixed(1)} s (${creationFailures} failed); they expire from ${EXPIRY_S} s after creation`);

    if (created === 0) throw new Error('no checkout of the wave was created');
    let state = await waveState(env);
    if (state.firstDeadline < creationEnd) log('warning: the first checkouts expired while others were still being created (raise WAVE_EXPIRY_SECONDS)');
    // CPU by process over the wave: from the first poll past the first deadline to the last that saw checkouts open.
    let cpuFrom: { at: number; cpu: Record<CpuGroup, number> } | null = null;
    let cpuTo: { at: number; cpu: Record<CpuGroup, number> } | null = null;
    while (state.open > 0 && Date.now() < state.lastDeadline + EXPIRY_WAIT_MS) {
      await sleep(2_000);
      state = await waveState(env);
      const sample = { at: Date.now(), cpu: cpuByGroup(env.pids) };
      if (!cpuFrom && sample.at > state.firstDeadline) cpuFrom = sample;
      else if (cpuFrom) cpuTo = sample;
      const recent = summarize(attempts.filter((a) => a.ended > Date.now() - 10_000));
      if (Date.now() > state.firstDeadline) log(`${state.expired} of ${created} expired, ${expiredWebhooks.size} checkout.expired received; live attempts in the last 10 s: ${recent.n}, max ${msText(recent.max)} ms`);
    }
    const expiredEvents = async () => Number((await env.db('events').where({ merchant_id: env.merchant.id, type: 'checkout.expired' }).count({ n: '*' }))[0]!.n);
    const deliveryDeadline = Date.now() + DELIVERY_WAIT_MS;
    while (expiredWebhooks.size < (await expiredEvents()) && Date.now() < deliveryDeadline) await sleep(1_000);
    await sleep(state.lastExpiry + TAIL_S * 1000 - Date.now());
    liveDone = true;
    await liveLoop;
    stopNeighbours(neighbours);
    // The background work left once every expiry is recorded: the expiry workflows still to run (each finds its checkout expired).
    const running = `WorkflowType='checkoutExpiryWorkflow' AND ExecutionStatus='Running' AND MerchantId='${env.merchant.id}'`;
    while ((await env.temporal.workflow.count(running)).count > 0 && Date.now() < state.lastDeadline + EXPIRY_WAIT_MS) await sleep(1_000);
    const backgroundDone = Date.now();
    const byWorker = await Promise.all(env.workerMetricsUrls.map((url) => expiriesRecordedBy(url).catch(() => ({ timer: NaN, sweep: NaN }))));
    const recordedBy = { timer: byWorker.reduce((n, w) => n + w.timer, 0), sweep: byWorker.reduce((n, w) => n + w.sweep, 0) };
    const events = await expiredEvents();

    const { rows: lateRows } = (await env.db.raw(
      `SELECT id, expires_at, extract(epoch FROM (updated_at - expires_at)) * 1000 AS late_ms, state FROM checkouts WHERE merchant_id = ?`,
      [env.merchant.id],
    )) as { rows: Array<{ id: string; expires_at: Date; late_ms: string; state: string }> };
    const expiresAt = new Map(lateRows.map((r) => [r.id, r.expires_at.getTime()]));
    const late = lateRows.filter((r) => r.state === 'expired').map((r) => Number(r.late_ms)).sort((a, b) => a - b);
    const receivedLate = [...expiredWebhooks.values()].map((w) => w.at - (expiresAt.get(w.dataId ?? '') ?? NaN)).filter(Number.isFinite).sort((a, b) => a - b);

    const measured = attempts.filter((a) => a.started >= measuredFrom);
    const before = measured.filter((a) => a.ended < state.firstDeadline);
    const during = measured.filter((a) => a.ended >= state.firstDeadline && a.started <= state.lastExpiry);
    const after = measured.filter((a) => a.started > state.lastExpiry);
    const windows = [
      ['before the wave', measuredFrom, state.firstDeadline, summarize(before)],
      ['… of which while the wave was created', creationStart, creationEnd, summarize(before.filter((a) => a.ended >= creationStart && a.started <= creationEnd))],
      ['during the wave', state.firstDeadline, state.lastExpiry, summarize(during)],
      ['after the wave', state.lastExpiry, Math.max(...measured.map((a) => a.ended)), summarize(after)],
    ] as const;
    const ratio = summarize(during).p99 / summarize(before).p99;
    const clusterArgs = temporalKindFromEnv().kind === 'address' && EXPERIMENT_ARGS.length ? ` (BENCH_DEV_SERVER_ARGS ${EXPERIMENT_ARGS.join(' ')} not applied: no dev server started)` : '';

    const report = [
      '# Expiry wave',
      '',
      `Generated by \`BENCH_SCRIPT=bench/expiry-wave.ts npm run bench\` on ${startedAt.toISOString()} at commit ${commit()}.`,
      '',
      `**Machine:** ${machineLine(machine)}; 1-minute load average before the run ${loadAverage.toFixed(2)}, after it ${(os.loadavg()[0] ?? 0).toFixed(2)}.`,
      `**Temporal:** ${env.temporalDescription}${clusterArgs}.`,
      `**Wave:** merchant A, ${created} checkouts created in ${((creationEnd - creationStart) / 1000).toFixed(1)} s by ${CONCURRENCY} concurrent creators (${creationFailures} failed), each expiring ${EXPIRY_S} s after its creation, none paid, \`checkout.expired\` enabled; deadlines spread over ${sText(state.lastDeadline - state.firstDeadline)}.`,
      `**Workers:** ${workersLine(env)}; task-queue priority and fairness ${process.env.BENCH_PRIORITIES === '0' ? '**off** (BENCH_PRIORITIES=0)' : 'on'}${temporalKindFromEnv().kind === 'address' ? ' as the server is configured' : ''}.`,
      `**Neighbours:** ${neighbourLine()}.`,
      `**Live payments:** merchant B, ${LIVE} customer${LIVE === 1 ? '' : 's'} in a closed loop, each attempt (\`POST /wallet/v1/checkouts/{id}/attempts\`, card 4242) on a fresh checkout created outside the timing; ${WARMUP_S} s of warm-up not counted, the wave created ${LEAD_S} s into the measured loop, which ran until ${TAIL_S} s after the last expiry.`,
      '',
      '| Live attempts | Window | n | p50 ms | p99 ms | max ms | over 2 s | failed |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...windows.map(([name, from, to, s]) => `| ${name} | ${((to - from) / 1000).toFixed(0)} s | ${s.n} | ${msText(s.p50)} | ${msText(s.p99)} | ${msText(s.max)} | ${s.slow} | ${s.failed} |`),
      '',
      '| Wave | Result |',
      '|---|---:|',
      `| p99 of live attempts, during ÷ before | **${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–'}** |`,
      `| checkouts that ended \`expired\` | ${late.length} of ${created}${late.length === created && state.open === 0 ? '' : ` (**${state.open} still open**)`} |`,
      `| … recorded by a workflow's timer / by the sweep of late timers | ${recordedBy.timer} / ${recordedBy.sweep}${byWorker.length > 1 ? ` (by worker: ${byWorker.map((w) => `${w.timer} / ${w.sweep}`).join('; ')})` : ''} |`,
      `| the last expiry workflow ended, after the last deadline | ${sText(backgroundDone - state.lastDeadline)} |`,
      `| expiry lateness (\`updated_at\` − \`expires_at\`) p50 / p99 / max | ${sText(percentile(late, 50))} / **${sText(percentile(late, 99))}** / ${sText(late.at(-1) ?? NaN)} |`,
      `| \`checkout.expired\` delivered | ${expiredWebhooks.size} of ${events} events (${deliveries} deliveries received) |`,
      `| \`checkout.expired\` received after the deadline p50 / p99 / max | ${sText(percentile(receivedLate, 50))} / ${sText(percentile(receivedLate, 99))} / ${sText(receivedLate.at(-1) ?? NaN)} |`,
      '',
      ...cpuTable(cpuFrom, cpuTo),
      `An attempt counts before the wave if it ended before the first deadline, during it if it overlapped the first deadline to the last expiry recorded, after it if it started later. Failed: answered other than 201 with a succeeded charge${liveFailures ? `; besides, ${liveFailures} checkouts of merchant B could not be created` : ''}.`,
      '',
    ].join('\n');
    process.stdout.write(`\n${report}`);
    mkdirSync(path.dirname(OUTPUT), { recursive: true });
    writeFileSync(OUTPUT, report);
    log(`wrote ${path.relative(path.resolve(__dirname, '..'), OUTPUT)}`);
  } finally {
    liveDone = true;
    stopNeighbours(neighbours);
    await receiver.close();
    await stop!();
  }
}

runScript(main);
