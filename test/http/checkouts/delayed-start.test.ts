// A checkout's workflow starts with a start delay that ends at its deadline (src/temporal/checkouts.ts):
// no workflow task runs at creation; the first attempt's update, or the deadline, runs the first.
// This file's sweep is given a long grace, but every test file shares the run's database and other
// files' workers sweep with none: a checkout here may be expired by one of those (its workflow then
// ends `open`, having found nothing to expire), so the results below allow either writer.
import { temporal } from '@temporalio/proto';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, recordedEvents, walletView, type CreatedCheckout } from '../../support/fixtures';
import { startCheckoutWorkflow } from '../../../src/temporal/checkouts';

const EventType = temporal.api.enums.v1.EventType;

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { EXPIRY_SWEEP_GRACE_MS: '600000' } } });

async function history(workflowId: string) {
  return (await service.deps.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

const ms = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(d?.seconds ?? 0) * 1000 + Math.round((d?.nanos ?? 0) / 1e6);
const eventMs = (e: temporal.api.history.v1.IHistoryEvent) => ms(e.eventTime);

async function expiresAt(checkout: CreatedCheckout): Promise<number> {
  const row = await service.deps.db('checkouts').where({ id: checkout.id }).first('expires_at');
  return (row.expires_at as Date).getTime();
}

describe("a checkout's workflow starts delayed until its deadline", () => {
  it('runs no workflow task at creation: Temporal holds the start until the deadline', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 600 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);
    await new Promise((r) => setTimeout(r, 1_000));

    const events = await history(checkout.id);
    expect(events.map((e) => e.eventType)).toEqual([EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED]);
    const started = events[0]!;
    const backoff = ms(started.workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff);
    // The delay ends at the checkout's deadline (the API computed both from one clock reading).
    expect(Math.abs(eventMs(started) + backoff - deadline)).toBeLessThan(1_000);
    const described = await service.deps.temporal.workflow.getHandle(checkout.id).describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.raw.pendingWorkflowTask ?? null).toBeNull();
    expect((await walletView(service, checkout)).body.state).toBe('open');
  });

  it('the first attempt ends the delay and is answered at once; the deadline then still expires the checkout', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 6, enabled_events: ['checkout.expired', 'checkout.failed'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);

    const sent = Date.now();
    const declined = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(declined.status).toBe(201);
    expect(declined.body.charge.status).toBe('failed');
    expect(Date.now()).toBeLessThan(deadline - 1_000); // answered long before the delay would have ended
    const firstTask = (await history(checkout.id)).find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)!;
    expect(eventMs(firstTask)).toBeGreaterThanOrEqual(sent - 1_000);
    expect(eventMs(firstTask)).toBeLessThan(deadline - 1_000);

    // Awake, the workflow holds its own expiry timer for the same deadline.
    const result = await service.deps.temporal.workflow.getHandle(checkout.id).result();
    expect(['expired', 'open']).toContain(result.state);
    const events = await history(checkout.id);
    const timer = events.find((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)!;
    expect(Math.abs(eventMs(timer) + ms(timer.timerStartedEventAttributes!.startToFireTimeout) - deadline)).toBeLessThan(1_000);
    const expired = (await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.expired');
    expect(expired).toHaveLength(1);
    expect((await walletView(service, checkout)).body.state).toBe('expired');
    expect(Date.now()).toBeGreaterThanOrEqual(deadline);
  }, 30_000);

  it('a checkout nobody pays is woken by its deadline, expires once, and its workflow ends', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 3, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await expiresAt(checkout);

    const result = await service.deps.temporal.workflow.getHandle(checkout.id).result();
    expect(['expired', 'open']).toContain(result.state);
    const events = await history(checkout.id);
    const firstTask = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)!;
    // Its first task ran at the deadline, not before it, and needed no timer of its own.
    expect(eventMs(firstTask)).toBeGreaterThanOrEqual(deadline - 1_000);
    expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toBe(false);
    const delivered = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.expired');
    expect(delivered.length).toBeLessThanOrEqual(1);
    expect((await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.expired')).toHaveLength(1);
    expect((await walletView(service, checkout)).body.state).toBe('expired');
    const refused = await attempt(service, checkout, { payment_method: CARD() });
    expect(refused.status).toBe(422);
  }, 30_000);

  it('CHECKOUT_WORKFLOW_DELAYED_START=false runs the first task at creation (startCheckoutWorkflow without delay)', async () => {
    const checkoutId = `chk_undelayed_${Date.now()}`;
    const input = { checkoutId, merchantId: 'mer_none', customerId: 'cus_none', type: 'deposit' as const, expiresAt: new Date(Date.now() + 600_000).toISOString() };
    await startCheckoutWorkflow(service.deps.temporal, service.taskQueue, input, false);
    const handle = service.deps.temporal.workflow.getHandle(checkoutId);
    try {
      let events = await history(checkoutId);
      for (let i = 0; i < 100 && !events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        events = await history(checkoutId);
      }
      expect(ms(events[0]!.workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff)).toBe(0);
      // Its first task started the expiry timer right away.
      expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toBe(true);
    } finally {
      await handle.terminate('test done');
    }
  });

  it('a deadline already past starts the workflow without a delay', async () => {
    const checkoutId = `chk_past_${Date.now()}`;
    const input = { checkoutId, merchantId: 'mer_none', customerId: 'cus_none', type: 'deposit' as const, expiresAt: new Date(Date.now() - 1_000).toISOString() };
    await startCheckoutWorkflow(service.deps.temporal, service.taskQueue, input);
    // No row exists for it: the workflow wakes at once, finds nothing to expire and ends.
    await expect(service.deps.temporal.workflow.getHandle(checkoutId).result()).resolves.toEqual({ state: 'open' });
    const events = await history(checkoutId);
    expect(ms(events[0]!.workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff)).toBe(0);
  });
});
