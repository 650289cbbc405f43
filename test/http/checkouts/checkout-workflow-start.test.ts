// A checkout's deadline is kept by its expiry workflow, a start delayed until the deadline at
// background priority; the checkout's own workflow starts with its first attempt, at interactive
// priority (src/temporal/checkouts.ts). This file's sweep is given a long grace, but every test file
// shares the run's database and other files' workers sweep with none: a checkout here may be
// expired by one of those, so the results below allow either writer.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, openShop, recordedEvents, waitFor, walletView, type CreatedCheckout } from '../../support/fixtures';
import { request } from '../../support/http';
import { checkoutWorkflowStart, startCheckoutWorkflow } from '../../../src/temporal/checkouts';
import { expireDueCheckout } from '../../../src/checkouts/expiry';
import { PRIORITY_LEVELS, checkoutExpiryWorkflowId, submitAttemptUpdate } from '../../../workflows/contract';

const EventType = temporal.api.enums.v1.EventType;

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { EXPIRY_SWEEP_GRACE_MS: '600000' } } });

async function history(workflowId: string) {
  return (await service.deps.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

const ms = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(d?.seconds ?? 0) * 1000 + Math.round((d?.nanos ?? 0) / 1e6);
const eventMs = (e: temporal.api.history.v1.IHistoryEvent) => ms(e.eventTime);
const started = (events: temporal.api.history.v1.IHistoryEvent[]) => events[0]!.workflowExecutionStartedEventAttributes!;
const firstTaskStarted = (events: temporal.api.history.v1.IHistoryEvent[]) => eventMs(events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)!);

async function expiresAt(checkout: CreatedCheckout): Promise<number> {
  const row = await service.deps.db('checkouts').where({ id: checkout.id }).first('expires_at');
  return (row.expires_at as Date).getTime();
}

describe("a checkout's deadline: its expiry workflow until the first attempt, then its own workflow", () => {
  it('runs no workflow task at creation: only the expiry workflow exists, held until the deadline, on the background task queue at background priority', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 600 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);
    await new Promise((r) => setTimeout(r, 1_000));

    const events = await history(checkoutExpiryWorkflowId(checkout.id));
    expect(events.map((e) => e.eventType)).toEqual([EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED]);
    // The delay ends at the checkout's deadline (the API computed both from one clock reading).
    expect(Math.abs(eventMs(events[0]!) + ms(started(events).firstWorkflowTaskBackoff) - deadline)).toBeLessThan(1_000);
    expect(started(events).priority).toMatchObject({ priorityKey: PRIORITY_LEVELS.background, fairnessKey: shop.merchant.id });
    expect(started(events).taskQueue?.name).toBe(service.deps.config.backgroundTaskQueue);
    await expect(service.deps.temporal.workflow.getHandle(checkout.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await walletView(service, checkout)).body.state).toBe('open');
  });

  it('the first attempt starts the checkout workflow at interactive priority and is answered at once; that workflow keeps the deadline', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 6, enabled_events: ['checkout.expired', 'checkout.failed'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);

    const sent = Date.now();
    const declined = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(declined.status).toBe(201);
    expect(declined.body.charge.status).toBe('failed');
    expect(Date.now()).toBeLessThan(deadline - 1_000);
    const first = await history(checkout.id);
    expect(started(first).priority).toMatchObject({ priorityKey: PRIORITY_LEVELS.interactive, fairnessKey: shop.merchant.id });
    expect(firstTaskStarted(first)).toBeGreaterThanOrEqual(sent - 1_000);
    // A second attempt reaches the same run (USE_EXISTING), it starts no other.
    expect((await attempt(service, checkout, { payment_method: CARD('4000000000000002') })).status).toBe(201);
    const { runId } = await service.deps.temporal.workflow.getHandle(checkout.id).describe();

    const result = await service.deps.temporal.workflow.getHandle(checkout.id).result();
    const expiry = await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(checkout.id)).result();
    // Whichever came first expired it, once: the checkout workflow's timer, the expiry workflow, or a sweep.
    expect([result.state === 'expired', expiry.expired].filter(Boolean).length).toBeLessThanOrEqual(1);
    const events = await history(checkout.id);
    const timerAt = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED);
    const timer = events[timerAt]!;
    // The workflow's clock in the task that started the timer is that task's start, not the time
    // the task was completed (a busy machine puts a second between them).
    const taskStarted = events.slice(0, timerAt).reverse().find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)!;
    expect(Math.abs(eventMs(taskStarted) + ms(timer.timerStartedEventAttributes!.startToFireTimeout) - deadline)).toBeLessThan(1_000);
    expect((await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.expired')).toHaveLength(1);
    expect((await walletView(service, checkout)).body.state).toBe('expired');

    // Its workflow has ended: an attempt sent to Temporal now (whatever the API let through) starts no new run.
    const row = await service.deps.db('checkouts').where({ id: checkout.id }).first();
    const late = service.deps.temporal.workflow.executeUpdateWithStart(submitAttemptUpdate, {
      args: [{ attemptId: `late_${checkout.id}`, paymentMethodId: 'pm_none', amountCents: 1_000 }],
      updateId: `late_${checkout.id}`,
      startWorkflowOperation: checkoutWorkflowStart(service.taskQueue, { ...row, state: 'open' }),
    });
    await expect(late).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    expect((await service.deps.temporal.workflow.getHandle(checkout.id).describe()).runId).toBe(runId);
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(422);
  }, 30_000);

  it('a checkout nobody pays is expired by its expiry workflow at its deadline, once, and no checkout workflow ever runs', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 3, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);

    await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(checkout.id)).result();
    const events = await history(checkoutExpiryWorkflowId(checkout.id));
    // One workflow task, at the deadline, and no timer of its own.
    expect(firstTaskStarted(events)).toBeGreaterThanOrEqual(deadline - 1_000);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)).toHaveLength(1);
    expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toBe(false);
    expect((await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.expired')).toHaveLength(1);
    expect((await walletView(service, checkout)).body.state).toBe('expired');
    await expect(service.deps.temporal.workflow.getHandle(checkout.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const refused = await attempt(service, checkout, { payment_method: CARD() });
    expect(refused.status).toBe(422);
    const delivered = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.expired');
    expect(delivered.length).toBeLessThanOrEqual(1);
  }, 30_000);

  it("ends the expiry workflow when the checkout's own workflow ends the checkout, not at the deadline; a declined attempt leaves it waiting", async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 600 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const expiry = service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(checkout.id));
    expect((await attempt(service, checkout, { payment_method: CARD('4000000000000002') })).body.charge.status).toBe('failed');
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await expiry.describe()).status.name).toBe('RUNNING');

    expect((await attempt(service, checkout, { payment_method: CARD() })).body.charge.status).toBe('succeeded');
    await expect(expiry.result()).resolves.toEqual({ expired: false });
    expect(await expiresAt(checkout)).toBeGreaterThan(Date.now() + 500_000);
    const events = await history(checkoutExpiryWorkflowId(checkout.id));
    const signals = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).map((e) => e.workflowExecutionSignaledEventAttributes?.signalName);
    expect(signals).toEqual(['checkoutEnded']);
    expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(false); // it expired nothing
    expect((await walletView(service, checkout)).body.state).toBe('completed');
  });

  it('names in each workflow\'s memo the merchant, the checkout and what the workflow does: checkout, expiry, delivery, refund', async () => {
    receiver.responder = () => ({ status: 500 });
    try {
      const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 600, enabled_events: ['checkout.succeeded'] });
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
      const paid = await attempt(service, checkout, { payment_method: CARD() });
      const memo = async (id: string) => (await service.deps.temporal.workflow.getHandle(id).describe()).memo;
      const ids = { merchant_id: shop.merchant.id, checkout_id: checkout.id };
      expect(await memo(checkoutExpiryWorkflowId(checkout.id))).toEqual({ ...ids, customer_id: shop.customerId, purpose: expect.stringMatching(/^Checkout expiry: expires the checkout at its deadline/) });
      expect(await memo(checkout.id)).toEqual({ ...ids, customer_id: shop.customerId, purpose: expect.stringMatching(/^Checkout \(deposit\): takes the customer's payment attempts/) });

      // The first delivery attempt failed: the event's delivery workflow makes the others.
      const succeeded = await waitFor(async () => (await recordedEvents(service, checkout.id)).find((e) => e.type === 'checkout.succeeded'));
      const delivery = await waitFor(() => memo(succeeded.id).catch(() => undefined), 15_000, 'the delivery workflow');
      expect(delivery).toEqual({ ...ids, event_id: succeeded.id, purpose: expect.stringMatching(/^Webhook delivery: sends checkout.succeeded to the merchant's webhook_url/) });

      receiver.responder = () => ({ status: 200 });
      const chargeId = paid.body.charge.id as string;
      expect((await request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key })).status).toBe(200);
      expect(await memo(chargeId)).toEqual({ ...ids, charge_id: chargeId, purpose: expect.stringMatching(/^Refund \(api\): refunds the charge at its processor/) });
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it("never expires a checkout a charge holds: the expiry workflow's expiry leaves it to the checkout's workflow", async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 60, sandbox_settlement_seconds: 60 });
    const held = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    expect((await attempt(service, held, { payment_method: BANK() })).body.charge.status).toBe('pending');
    const free = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    await service.deps.db('checkouts').whereIn('id', [held.id, free.id]).update({ expires_at: service.deps.db.raw("now() - interval '1 second'") });

    expect(await expireDueCheckout(service.deps, held.id)).toBe(false);
    expect((await service.deps.db('checkouts').where({ id: held.id }).first()).state).toBe('open');
    expect(await expireDueCheckout(service.deps, free.id)).toBe(true);
    expect(await expireDueCheckout(service.deps, free.id)).toBe(false);
    expect((await recordedEvents(service, free.id)).filter((e) => e.type === 'checkout.expired')).toHaveLength(1);
  });

  it('CHECKOUT_WORKFLOW_DELAYED_START=false starts the checkout workflow at creation, which sets its timer at once', async () => {
    const checkoutId = `chk_undelayed_${Date.now()}`;
    const input = { checkoutId, merchantId: 'mer_none', customerId: 'cus_none', type: 'deposit' as const, expiresAt: new Date(Date.now() + 600_000).toISOString() };
    await startCheckoutWorkflow(service.deps.temporal, service.deps.config, input, false);
    const handle = service.deps.temporal.workflow.getHandle(checkoutId);
    try {
      let events = await history(checkoutId);
      for (let i = 0; i < 100 && !events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        events = await history(checkoutId);
      }
      expect(ms(started(events).firstWorkflowTaskBackoff)).toBe(0);
      expect(started(events).priority).toMatchObject({ priorityKey: PRIORITY_LEVELS.interactive });
      expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toBe(true);
    } finally {
      await handle.terminate('test done');
    }
  });

  it('a deadline already past starts the expiry workflow without a delay', async () => {
    const checkoutId = `chk_past_${Date.now()}`;
    const input = { checkoutId, merchantId: 'mer_none', customerId: 'cus_none', type: 'deposit' as const, expiresAt: new Date(Date.now() - 1_000).toISOString() };
    await startCheckoutWorkflow(service.deps.temporal, service.deps.config, input);
    // No row exists for it: the workflow runs at once, finds nothing to expire and ends.
    await expect(service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(checkoutId)).result()).resolves.toEqual({ expired: false });
    const events = await history(checkoutExpiryWorkflowId(checkoutId));
    expect(ms(started(events).firstWorkflowTaskBackoff)).toBe(0);
  });
});
