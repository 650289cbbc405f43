import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { RenewalStep, SubscriptionPlan } from '../../activities/subscriptions';
import type { SubscriptionView } from '../../src/domain/subscriptions';
import { WORKFLOWS, advanceClockUpdate, cancelSubscriptionUpdate } from '../../workflows/contract';
import { startWorkflow } from '../../src/temporal/workflows';
import { waitFor } from '../support/fixtures';
import { startTracing, workerTracingOptions } from '../../src/observability/tracing';

/**
 * The subscription workflow on the real Temporal server with fake activities (the worker takes any
 * activities object), for the orderings that are slow or rare end to end: a cancellation arriving
 * while a renewal is at the processor, a renewal the database finds not due yet, a pending renewal.
 */
let connection: NativeConnection;
let client: Client;
beforeAll(async () => {
  connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
});
afterAll(async () => {
  await client.connection.close();
  await connection.close();
});

type Fake = {
  log: string[];
  plan: (call: number) => Partial<SubscriptionPlan>;
  begin: (call: number) => RenewalStep;
  charge?: () => Promise<{ status: string }>;
};

const view = (status: SubscriptionView['status']): SubscriptionView => ({
  id: 'sub_x', status, interval: 'month', interval_count: 1, amount_cents: 100, current_period_start: null, current_period_end: null,
  next_charge_at: null, cancel_at_period_end: false, cancelled_at: null, cancellation_reason: status === 'cancelled' ? 'requested' : null, failed_attempts: 0,
});

async function run<T>(fake: Fake, body: (workflowId: string) => Promise<T>): Promise<T> {
  const calls = { plan: 0, begin: 0 };
  const activities = {
    async loadSubscriptionPlan({ subscriptionId }: { subscriptionId: string }): Promise<SubscriptionPlan> {
      fake.log.push('loadSubscriptionPlan');
      return { subscriptionId, status: 'active', nextChargeAt: new Date(Date.now() - 1000).toISOString(), cancelAtPeriodEnd: false, clockOffsetMs: 0, settlementMs: 50, ...fake.plan(++calls.plan) };
    },
    async beginRenewal(): Promise<RenewalStep> {
      fake.log.push('beginRenewal');
      return fake.begin(++calls.begin);
    },
    async chargeDeposit({ chargeId }: { chargeId: string }) {
      fake.log.push('chargeDeposit:start');
      const result = fake.charge ? await fake.charge() : { status: 'succeeded' };
      fake.log.push('chargeDeposit:end');
      return { chargeId, transactionType: 'credit', paymentType: 'card', amountCents: 100, ...result };
    },
    async settleCharge({ chargeId }: { chargeId: string }) {
      fake.log.push('settleCharge');
      return { chargeId, status: 'succeeded', transactionType: 'credit', paymentType: 'bank_account', amountCents: 100 };
    },
    async cancelSubscription({ atPeriodEnd }: { atPeriodEnd: boolean }): Promise<SubscriptionView> {
      fake.log.push(`cancelSubscription:${atPeriodEnd ? 'period_end' : 'now'}`);
      return view(atPeriodEnd ? 'active' : 'cancelled');
    },
  };
  const taskQueue = `sub-wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection,
    taskQueue,
    activities,
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    maxCachedWorkflows: 0,
    // The bundle has the OpenTelemetry workflow interceptors; their span sink must exist.
    sinks: workerTracingOptions(startTracing({ serviceName: 'test', otlpEndpoint: null })).sinks,
  });
  const workflowId = `sub_${randomUUID()}`;
  return worker.runUntil(async () => {
    await startWorkflow(client, WORKFLOWS.subscription, { taskQueue, workflowId, args: [{ subscriptionId: workflowId, clockOffsetMs: 0 }] });
    return body(workflowId);
  });
}

describe('subscription workflow orderings', () => {
  it('runs a cancellation that arrives while the renewal is at the processor only after the renewal', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fake: Fake = {
      log: [],
      plan: () => ({}),
      begin: () => ({ kind: 'charge', chargeId: 'ch_1' }),
      charge: async () => (await gate, { status: 'succeeded' }),
    };
    await run(fake, async (id) => {
      await waitFor(() => fake.log.includes('chargeDeposit:start'), 15_000, 'the renewal at the processor');
      const cancelled = client.workflow.getHandle(id).executeUpdate(cancelSubscriptionUpdate, { args: [{ atPeriodEnd: false }] });
      await new Promise((r) => setTimeout(r, 500));
      expect(fake.log).not.toContain('cancelSubscription:now');
      release();
      expect((await cancelled).status).toBe('cancelled');
      expect(await client.workflow.getHandle(id).result()).toEqual({ ended: true });
    });
    expect(fake.log).toEqual(['loadSubscriptionPlan', 'beginRenewal', 'chargeDeposit:start', 'chargeDeposit:end', 'cancelSubscription:now']);
  });

  it('waits on the clock until an advance makes the charge due, then charges', async () => {
    const fake: Fake = {
      log: [],
      plan: (call) => (call === 1 ? { nextChargeAt: new Date(Date.now() + 86_400_000).toISOString() } : { status: 'cancelled' }),
      begin: () => ({ kind: 'charge', chargeId: 'ch_2' }),
    };
    await run(fake, async (id) => {
      await waitFor(() => fake.log.includes('loadSubscriptionPlan'), 15_000, 'the first run');
      await new Promise((r) => setTimeout(r, 700));
      expect(fake.log).toEqual(['loadSubscriptionPlan']);
      const now = await client.workflow.getHandle(id).executeUpdate(advanceClockUpdate, { args: [{ clockOffsetMs: 86_400_000 + 3_600_000 }] });
      expect(Date.parse(now.now)).toBeGreaterThan(Date.now() + 86_400_000);
      expect(await client.workflow.getHandle(id).result()).toEqual({ ended: true });
    });
    // The charge, then a new run (continue-as-new) that finds the subscription ended.
    expect(fake.log).toEqual(['loadSubscriptionPlan', 'beginRenewal', 'chargeDeposit:start', 'chargeDeposit:end', 'loadSubscriptionPlan']);
  });

  // Audit regression: the real timer was set once, for the due time on the clock before the
  // advance, so after an advance to 2 s before the due time nothing happened for days of real time.
  it('after an advance short of the due time, waits only the real time that remains, then charges', async () => {
    const fake: Fake = {
      log: [],
      plan: (call) => (call === 1 ? { nextChargeAt: new Date(Date.now() + 86_400_000).toISOString() } : { status: 'cancelled' }),
      begin: () => ({ kind: 'charge', chargeId: 'ch_4' }),
    };
    await run(fake, async (id) => {
      await waitFor(() => fake.log.includes('loadSubscriptionPlan'), 15_000, 'the first run');
      const handle = client.workflow.getHandle(id);
      const advancedAt = Date.now();
      await handle.executeUpdate(advanceClockUpdate, { args: [{ clockOffsetMs: 86_400_000 - 2_000 }] });
      await new Promise((r) => setTimeout(r, 500));
      expect(fake.log).toEqual(['loadSubscriptionPlan']); // not due yet on its clock
      await waitFor(() => fake.log.includes('beginRenewal'), 10_000, 'the renewal by real time alone');
      expect(Date.now() - advancedAt).toBeGreaterThanOrEqual(1_500);
      expect(await handle.result()).toEqual({ ended: true });
    });
    expect(fake.log).toEqual(['loadSubscriptionPlan', 'beginRenewal', 'chargeDeposit:start', 'chargeDeposit:end', 'loadSubscriptionPlan']);
  });

  it('looks again in a new run when the database finds the renewal not due yet', async () => {
    const fake: Fake = { log: [], plan: () => ({}), begin: (call) => (call === 1 ? { kind: 'not_due' } : { kind: 'ended' }) };
    await run(fake, async (id) => expect(await client.workflow.getHandle(id).result()).toEqual({ ended: true }));
    expect(fake.log).toEqual(['loadSubscriptionPlan', 'beginRenewal', 'loadSubscriptionPlan', 'beginRenewal']);
  });

  it('settles a pending renewal after the sandbox settlement time', async () => {
    const fake: Fake = {
      log: [],
      plan: (call) => (call === 1 ? {} : { status: 'cancelled' }),
      begin: () => ({ kind: 'charge', chargeId: 'ch_3' }),
      charge: async () => ({ status: 'pending' }),
    };
    await run(fake, async (id) => expect(await client.workflow.getHandle(id).result()).toEqual({ ended: true }));
    expect(fake.log).toEqual(['loadSubscriptionPlan', 'beginRenewal', 'chargeDeposit:start', 'chargeDeposit:end', 'settleCharge', 'loadSubscriptionPlan']);
  });
});
