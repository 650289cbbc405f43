/**
 * What a checkout's start asks of Temporal beyond checkout create's floor (a bare `workflow.start`):
 * the same start, in alternating rounds at one connection count on one dev server as `npm start`
 * runs it, in three shapes, with the Temporal server's CPU per start (from /proc):
 *
 *   bare                  the floor's start: no input, no search attributes, no worker
 *   search attributes     + the three Keyword search attributes the operator spec requires of every
 *                           checkout (MerchantId, CustomerId, CheckoutType) and a checkout's input
 *   delayed (checkout)    + the start delay until a 30-minute deadline: a checkout's start exactly
 *
 * No worker polls the task queue (a delayed start runs no task anyway).
 *
 *   BENCH_SCRIPT=bench/start-shapes.ts npm run bench
 *   START_SHAPES_SECONDS=8 START_SHAPES_ROUNDS=3 START_SHAPES_CONNECTIONS=10
 */
import { TypedSearchAttributes } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORKFLOWS, checkoutSearchAttributes, checkoutWorkflowId, type CheckoutWorkflowInput } from '../workflows/contract';
import { startWorkflow } from '../src/temporal/workflows';
import { cpuByGroup, cpuSince } from './support/proc-stat';
import { percentile, runClosedLoop } from './support/samples';
import { connectClient, startTemporal, temporalCliPath } from './support/temporal';
import { runScript } from './support/run-script';

const seconds = Number(process.env.START_SHAPES_SECONDS ?? 8);
const rounds = Number(process.env.START_SHAPES_ROUNDS ?? 3);
const connections = Number(process.env.START_SHAPES_CONNECTIONS ?? 10);
const DEADLINE_MS = 30 * 60_000;

type Shape = 'bare' | 'search attributes' | 'delayed (checkout)';
const SHAPES: Shape[] = ['bare', 'search attributes', 'delayed (checkout)'];

function checkoutInput(): CheckoutWorkflowInput {
  return {
    checkoutId: `chk_${randomBytes(12).toString('hex')}`,
    merchantId: `mer_${randomBytes(12).toString('hex')}`,
    customerId: `cus_${randomBytes(12).toString('hex')}`,
    type: 'deposit',
    expiresAt: new Date(Date.now() + DEADLINE_MS).toISOString(),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payments-start-shapes-'));
  const server = await startTemporal({ kind: 'dev-file' }, temporalCliPath(), dir);
  try {
    const client = await connectClient(server.address);
    const taskQueue = `bench-shapes-${randomBytes(4).toString('hex')}`;
    const start = (shape: Shape) => {
      // The floor's start has no input at all, which the typed start refuses; no worker runs it.
      if (shape === 'bare') return client.workflow.start(WORKFLOWS.checkout.workflowType, { taskQueue, workflowId: `floor-${randomBytes(8).toString('hex')}`, args: [] });
      const input = checkoutInput();
      return startWorkflow(client, WORKFLOWS.checkout, {
        taskQueue,
        workflowId: checkoutWorkflowId(input.checkoutId),
        args: [input],
        typedSearchAttributes: new TypedSearchAttributes(checkoutSearchAttributes(input)),
        ...(shape === 'delayed (checkout)' ? { startDelay: DEADLINE_MS } : {}),
      });
    };
    const totals = new Map(SHAPES.map((s) => [s, { samples: [] as number[], temporalCpu: 0, failures: 0 }]));
    // A warm-up round of each shape, not counted.
    for (const shape of SHAPES) await runClosedLoop(connections, 2_000, () => start(shape).then(() => undefined));
    for (let round = 0; round < rounds; round++) {
      for (const shape of SHAPES) {
        const total = totals.get(shape)!;
        const before = cpuByGroup({ api: process.pid, worker: process.pid });
        let count = 0;
        await runClosedLoop(connections, seconds * 1000, async () => {
          const began = performance.now();
          try {
            await start(shape);
            total.samples.push(performance.now() - began);
            count++;
          } catch {
            total.failures++;
          }
        });
        total.temporalCpu += cpuSince(before, cpuByGroup({ api: process.pid, worker: process.pid })).temporal;
        console.error(`round ${round + 1} ${shape}: ${(count / seconds).toFixed(0)} starts/s`);
      }
    }
    console.log(`\nStart shapes on ${server.describe}; ${os.cpus()[0]?.model ?? 'CPU'} × ${os.cpus().length}, c=${connections}, ${rounds} rounds of ${seconds} s\n`);
    console.log('| Start | Starts/s | p50 ms | p99 ms | Temporal CPU per start | Failures |\n|---|---:|---:|---:|---:|---:|');
    for (const shape of SHAPES) {
      const { samples, temporalCpu, failures } = totals.get(shape)!;
      const sorted = [...samples].sort((a, b) => a - b);
      console.log(`| ${shape} | ${(samples.length / (rounds * seconds)).toFixed(0)} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${((temporalCpu * 1000) / Math.max(1, samples.length)).toFixed(2)} ms | ${failures} |`);
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runScript(main);
