// Expiry has two writers (src/checkouts/expiry.ts): the checkout workflow's durable timer, and each
// worker's sweep of checkouts whose timer runs late. Here the timer is made late on purpose: the
// database's deadline is moved into the past while the workflow's timer still waits for the old one.
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, openShop, recordedEvents, waitFor, walletView, type CreatedCheckout } from '../../support/fixtures';
import { sweepOverdueCheckouts } from '../../../src/checkouts/expiry';
import { workerRegistry } from '../../../src/observability/metrics';
import { createActivities } from '../../../activities';
import { FAILURE_TYPES } from '../../../workflows/contract';
import { checkoutExpiryWorkflowId } from '../../../workflows/contract';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));
beforeEach(() => {
  receiver.responder = () => ({ status: 200 });
});

/** The database's deadline moves to now: the sweep (no grace in tests) takes it, the timer still waits. */
async function makeTimerLate(checkout: CreatedCheckout): Promise<Date> {
  const [row] = await service.deps.db('checkouts').where({ id: checkout.id }).update({ expires_at: service.deps.db.fn.now() }).returning('expires_at');
  return row.expires_at as Date;
}

async function sweptSoFar(): Promise<number> {
  const metric = await workerRegistry.getSingleMetric('payments_checkouts_expired_total')!.get();
  return metric.values.find((v) => v.labels.by === 'sweep')?.value ?? 0;
}

const expiredEvents = async (checkoutId: string) => (await recordedEvents(service, checkoutId)).filter((e) => e.type === 'checkout.expired');

describe('the sweep of late expiry timers', () => {
  it('expires a checkout whose timer is late, once; the timer later finds it expired and its workflow ends', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 6, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const deadline = await makeTimerLate(checkout);

    // Within 5 s, before the workflow's timer (6 s): the sweep recorded it.
    const delivery = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.expired'), 5_000, 'checkout.expired from the sweep');
    expect(Date.parse(delivery.body.data.expired_at)).toBe(deadline.getTime());
    expect((await walletView(service, checkout)).body.state).toBe('expired');
    const refused = await attempt(service, checkout, { payment_method: CARD() });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('This checkout has expired.');

    // Its expiry workflow (6 s after creation) then finds nothing left to expire.
    const result = await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(checkout.id)).result();
    expect(result).toEqual({ expired: false });
    expect(await expiredEvents(checkout.id)).toHaveLength(1);
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.expired')).toHaveLength(1);
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
  }, 30_000);

  it('leaves a checkout a charge in progress holds; the charge decides, and a failed one lets the checkout expire', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 60, sandbox_settlement_seconds: 3, enabled_events: ['checkout.expired', 'checkout.failed'] });
    const succeeding = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    const failing = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    expect((await attempt(service, succeeding, { payment_method: BANK() })).body.charge.status).toBe('pending');
    expect((await attempt(service, failing, { payment_method: BANK('000111110002') })).body.charge.status).toBe('pending');
    await makeTimerLate(succeeding);
    await makeTimerLate(failing);

    // Several sweeps pass while the charges are pending: neither checkout is expired under them.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const checkout of [succeeding, failing]) {
      expect((await service.deps.db('checkouts').where({ id: checkout.id }).first()).state).toBe('open');
      expect(await expiredEvents(checkout.id)).toHaveLength(0);
    }

    // The bank charge settles: the checkout is completed by the success, never expired.
    await waitFor(async () => (await service.deps.db('checkouts').where({ id: succeeding.id }).first()).state === 'completed', 15_000, 'the settled checkout');
    // The failed one leaves the checkout open past its deadline: the next sweep expires it, once.
    await waitFor(async () => (await expiredEvents(failing.id)).length === 1, 15_000, 'checkout.expired after the failure');
    const [failed] = await service.deps.db('charges').where({ checkout_id: failing.id });
    expect(failed.status).toBe('failed');
    await new Promise((r) => setTimeout(r, 600));
    expect(await expiredEvents(succeeding.id)).toHaveLength(0);
    expect(await expiredEvents(failing.id)).toHaveLength(1);
  }, 40_000);

  it('sweeps running at once expire each overdue checkout exactly once', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 60, enabled_events: ['checkout.expired'] });
    const checkouts = await Promise.all(Array.from({ length: 30 }, () => createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 500 })));
    await service.deps.db('checkouts').whereIn('id', checkouts.map((c) => c.id)).update({ expires_at: service.deps.db.fn.now() });
    // Five sweeps of this process beside the workers' own (each worker process counts its own).
    const swept = await sweptSoFar();
    const counts = await Promise.all(Array.from({ length: 5 }, () => sweepOverdueCheckouts(service.deps, 0)));
    expect(await sweptSoFar()).toBe(swept + counts.reduce((a, b) => a + b, 0));
    await waitFor(async () => {
      const rows = await service.deps.db('checkouts').whereIn('id', checkouts.map((c) => c.id)).where({ state: 'expired' });
      return rows.length === checkouts.length;
    }, 5_000, 'every checkout expired');
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(checkouts.length);
    const events = await service.deps.db('events').whereIn('checkout_id', checkouts.map((c) => c.id)).where({ type: 'checkout.expired' });
    expect(events).toHaveLength(checkouts.length);
    expect(new Set(events.map((e) => e.checkout_id)).size).toBe(checkouts.length);
  }, 30_000);

  it('a review cannot start on a checkout that expired while its attempt ran', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 60, review: { enabled: true, min_amount_cents: 100 } });
    // A stored card of this customer, from an attempt on another checkout (it paused for review).
    const other = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 5_000 });
    expect((await attempt(service, other, { amount_cents: 1_000, payment_method: CARD() })).status).toBe(202);
    const { payment_method_id: paymentMethodId } = await service.deps.db('reviews').where({ checkout_id: other.id }).first();

    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 5_000 });
    await service.deps.db('checkouts').where({ id: checkout.id }).update({ state: 'expired' });
    const { createReview } = createActivities(service.deps);
    const refusal = await createReview({ checkoutId: checkout.id, attemptKey: 'attempt-after-expiry', paymentMethodId, amountCents: 1_000 }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ type: FAILURE_TYPES.checkoutClosed, nonRetryable: true });
    expect(await service.deps.db('reviews').where({ checkout_id: checkout.id })).toHaveLength(0);
    expect((await service.deps.db('checkouts').where({ id: checkout.id }).first()).state).toBe('expired');
  });

  it('a gate cannot block a checkout that expired while its attempt ran; a retried block finds its own', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 60, enabled_events: ['checkout.terminally_failed'] });
    const { blockCheckout } = createActivities(service.deps);
    const expired = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    await service.deps.db('checkouts').where({ id: expired.id }).update({ state: 'expired' });
    const refusal = await blockCheckout({ checkoutId: expired.id, reason: 'geo_check_missing' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ type: FAILURE_TYPES.checkoutClosed, nonRetryable: true });
    expect((await recordedEvents(service, expired.id)).map((e) => e.type)).not.toContain('checkout.terminally_failed');
    expect((await service.deps.db('checkouts').where({ id: expired.id }).first()).state).toBe('expired');

    const blocked = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    await blockCheckout({ checkoutId: blocked.id, reason: 'geo_check_missing' });
    await expect(blockCheckout({ checkoutId: blocked.id, reason: 'geo_check_missing' })).resolves.toBeUndefined();
    expect((await recordedEvents(service, blocked.id)).filter((e) => e.type === 'checkout.terminally_failed')).toHaveLength(1);
  });

  it('checkouts that charges in progress hold never crowd a free overdue one out of a sweep', async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 60, sandbox_settlement_seconds: 60 });
    const held = [await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 }), await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 })];
    for (const checkout of held) expect((await attempt(service, checkout, { payment_method: BANK() })).body.charge.status).toBe('pending');
    const free = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
    // No worker, so no sweep of its own: this one sweeps one checkout per batch, overdue first.
    await service.stopWorker();
    try {
      await service.deps.db('checkouts').whereIn('id', held.map((c) => c.id)).update({ expires_at: service.deps.db.raw("now() - interval '10 seconds'") });
      await service.deps.db('checkouts').where({ id: free.id }).update({ expires_at: service.deps.db.fn.now() });
      // The sweep is not scoped: other test files' open checkouts share the run's database, and one
      // of theirs overdue at this moment would be swept and counted too. Held locked meanwhile by
      // another transaction, they are skipped (the sweep's SKIP LOCKED), so the count is this file's.
      const mine = [...held, free].map((c) => c.id);
      const others = await service.deps.db.transaction();
      try {
        await others('checkouts').where({ state: 'open' }).whereNotIn('id', mine).forUpdate().select('id');
        expect(await sweepOverdueCheckouts(service.deps, 0, 1)).toBe(1);
      } finally {
        await others.rollback();
      }
      expect((await service.deps.db('checkouts').where({ id: free.id }).first()).state).toBe('expired');
      for (const checkout of held) expect((await service.deps.db('checkouts').where({ id: checkout.id }).first()).state).toBe('open');
    } finally {
      await service.startWorker();
    }
  });

  it('a sweep records a batch of several merchants with one event INSERT per merchant, each checkout once, and delivers each', async () => {
    const shops = [
      await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 60, enabled_events: ['checkout.expired'] }),
      await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 60, enabled_events: ['checkout.expired'] }),
    ];
    const checkouts = await Promise.all(
      shops.flatMap((shop) => Array.from({ length: 4 }, async () => ({ ...(await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 700 })), merchantId: shop.merchant.id }))),
    );
    const mine = checkouts.map((c) => c.id);
    await service.stopWorker();
    const statements: string[] = [];
    const count = (query: { sql: string }) => statements.push(query.sql);
    try {
      await service.deps.db('checkouts').whereIn('id', mine).update({ expires_at: service.deps.db.fn.now() });
      // Other files' overdue checkouts, locked meanwhile, are skipped (see the test above).
      const others = await service.deps.db.transaction();
      try {
        await others('checkouts').where({ state: 'open' }).whereNotIn('id', mine).forUpdate().select('id');
        service.deps.db.on('query', count);
        expect(await sweepOverdueCheckouts(service.deps, 0)).toBe(checkouts.length);
      } finally {
        service.deps.db.off('query', count);
        await others.rollback();
      }
    } finally {
      await service.startWorker();
    }
    expect(statements.filter((sql) => /^insert into events/i.test(sql.trim()))).toHaveLength(shops.length);

    const events = await service.deps.db('events').whereIn('checkout_id', mine).where({ type: 'checkout.expired' });
    expect(events.map((e) => e.checkout_id).sort()).toEqual([...mine].sort());
    for (const event of events) {
      const checkout = checkouts.find((c) => c.id === event.checkout_id)!;
      expect(event.merchant_id).toBe(checkout.merchantId);
      expect(JSON.parse(event.body)).toMatchObject({ event_id: event.id, type: 'checkout.expired', data: { id: checkout.id, type: 'deposit' } });
    }
    for (const id of mine) {
      await waitFor(() => receiver.forCheckout(id).some((r) => r.body.type === 'checkout.expired'), 10_000, `checkout.expired of ${id} delivered`);
    }
    expect(receiver.ofType('checkout.expired').filter((r) => mine.includes(r.body.data.id))).toHaveLength(checkouts.length);
  }, 40_000);

  // From the long property run's seed 20316557 (path 150:48): a pending bank deposit, its timer made
  // late, then the simulator cancels the charge. The sweep expires the checkout the moment no charge
  // holds it, with its deadline already past: the suite's settle() took that for a run at rest and
  // checked before the event's delivery (settle now also waits for checkouts due to expire).
  it('a pending charge the simulator cancels after the timer ran late: the sweep expires the checkout at once, and tells the merchant once', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 4, sandbox_settlement_seconds: 1, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', line_items: [{ name: 'Thing', price_cents: 5_000, quantity: 1 }] });
    const paid = await attempt(service, checkout, { payment_method: BANK() });
    expect(paid.body.charge.status).toBe('pending');
    await makeTimerLate(checkout);
    const cancel = await request(service.baseUrl, 'POST', `/admin/v1/sandbox/charges/${paid.body.charge.id}/transition`, { token: service.adminToken, body: { to: 'cancelled' } });
    expect(cancel.status).toBe(200);
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.expired'), 5_000, 'checkout.expired delivered');
    // The workflow (its settlement, then its own timer) ends without a second expiry.
    await service.deps.temporal.workflow.getHandle(checkout.id).result();
    expect(await expiredEvents(checkout.id)).toHaveLength(1);
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.expired')).toHaveLength(1);
    expect((await service.deps.db('charges').where({ checkout_id: checkout.id }).first()).status).toBe('cancelled');
  }, 30_000);
});
