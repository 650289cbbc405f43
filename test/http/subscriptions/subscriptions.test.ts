import { applyChargeMove } from '../../../src/charges/moves';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, openShop, recordedEvents, waitFor, walletView, type Shop } from '../../support/fixtures';
import { DAY, HOUR, plus, subscriptionHelpers } from '../../support/subscriptions';
import { subscriptionViolations } from '../../support/subscription-invariants';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));
afterEach(async () => {
  // Whatever a test did, the money invariants of every subscription hold.
  expect(await subscriptionViolations(service.deps.db)).toEqual([]);
});

const { admin, setClock, subscribe, read, advance, until } = subscriptionHelpers(() => service);
const SUBSCRIPTION_EVENTS = ['subscription.created', 'subscription.renewed', 'subscription.payment_failed', 'subscription.updated', 'subscription.cancelled'];

describe('creation by the first successful charge', () => {
  it('answers an incomplete subscription at checkout creation, then creates sub_ with the method saved for renewals', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['subscription.created'] });
    await setClock(shop, '2027-03-15T10:00:00Z');
    const checkout = await createCheckout(service, shop, {
      type: 'deposit',
      line_items: [{ name: 'Plan', price_cents: 1200, quantity: 1 }, { name: 'Tax', price_cents: 100, quantity: 1, sku: 'tax' }],
      subscription_data: { interval: 'month', interval_count: 1 },
    });
    expect(checkout.subscription).toEqual({
      id: null, status: 'incomplete', interval: 'month', interval_count: 1, amount_cents: 1300,
      current_period_start: null, current_period_end: null, next_charge_at: null,
      cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null, failed_attempts: 0,
    });
    const before = await walletView(service, checkout);
    expect(before.body.subscription).toEqual({ interval: 'month', interval_count: 1, amount_cents: 1300, saved_for_renewals: true });

    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.body.charge.status).toBe('succeeded');
    const row = await waitFor(async () => service.deps.db('subscriptions').where({ checkout_id: checkout.id }).first());
    expect(row.id).toMatch(/^sub_[0-9A-Za-z]{24}$/);
    expect((await service.deps.db('payment_methods').where({ id: row.payment_method_id }).first()).saved).toBe(true);
    expect((await service.deps.db('charges').where({ id: paid.body.charge.id }).first()).subscription_id).toBe(row.id);

    const sub = await read(row.id);
    expect(sub).toMatchObject({
      id: row.id, status: 'active', amount_cents: 1300, checkout_id: checkout.id, customer_id: shop.customerId,
      current_period_start: expect.stringMatching(/^2027-03-15T10:00/), current_period_end: expect.stringMatching(/^2027-04-15T10:00/),
      next_charge_at: expect.stringMatching(/^2027-04-15T10:00/), cancel_at_period_end: false, failed_attempts: 0,
    });
    expect(sub.charges).toEqual([expect.objectContaining({ id: paid.body.charge.id, period: 0, status: 'succeeded' })]);

    // checkout.succeeded and subscription.created both carry the subscription as created.
    const delivered = await waitFor(() => {
      const found = receiver.forCheckout(checkout.id);
      return found.length >= 2 && found;
    });
    const succeeded = delivered.find((r) => r.body.type === 'checkout.succeeded')!;
    expect(succeeded.body.data.subscription).toEqual({
      id: row.id, status: 'active', interval: 'month', interval_count: 1, amount_cents: 1300,
      current_period_start: sub.current_period_start, current_period_end: sub.current_period_end, next_charge_at: sub.next_charge_at,
      cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null, failed_attempts: 0,
    });
    const created = delivered.find((r) => r.body.type === 'subscription.created')!;
    expect(created.body.data).toEqual({ id: checkout.id, type: 'deposit', customer: { id: shop.customerId }, subscription: succeeded.body.data.subscription, charge_id: paid.body.charge.id });
  });

  it('names its merchant, customer and what it does in its workflow memo', async () => {
    const shop = await openShop(service);
    const { id } = await subscribe(shop);
    const { memo } = await waitFor(() => service.deps.temporal.workflow.getHandle(id).describe().catch(() => undefined), 15_000, 'the workflow');
    expect(memo).toEqual({ merchant_id: shop.merchant.id, customer_id: shop.customerId, subscription_id: id, purpose: expect.stringMatching(/^Subscription: renews the subscription each period/) });
  });

  it('records subscription.* events but delivers none unless enabled', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const { checkout } = await subscribe(shop);
    const events = await recordedEvents(service, checkout.id);
    expect(events.find((e) => e.type === 'subscription.created')).toMatchObject({ enabled: false });
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.succeeded'));
    expect(receiver.forCheckout(checkout.id).map((r) => r.body.type)).toEqual(['checkout.succeeded']);
    // Each is a setting a merchant may turn on.
    const settings = await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { enabled_events: SUBSCRIPTION_EVENTS });
    expect(settings.body.enabled_events).toEqual(SUBSCRIPTION_EVENTS);
  });

  it('reports a subscription checkout that expires unpaid as incomplete in checkout.expired', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.expired'], checkout_expiry_seconds: 1 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', line_items: [{ name: 'Plan', price_cents: 700, quantity: 1 }], subscription_data: { interval: 'week', interval_count: 2 } });
    const expired = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.expired'), 20_000);
    expect(expired.body.data.subscription).toMatchObject({ id: null, status: 'incomplete', interval: 'week', interval_count: 2, amount_cents: 700 });
    expect(await service.deps.db('subscriptions').where({ checkout_id: checkout.id })).toHaveLength(0);
  });
});

describe('crash safety and documentation', () => {
  it('the sweeper starts the workflow of a subscription whose start was lost after its commit', async () => {
    const shop = await openShop(service, { sandbox_settlement_seconds: 3600 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', line_items: [{ name: 'Plan', price_cents: 800, quantity: 1 }], subscription_data: { interval: 'month', interval_count: 1 } });
    const pending = await attempt(service, checkout, { payment_method: BANK() });
    expect(pending.body.charge.status).toBe('pending');
    // The move that creates the subscription commits, and the process "dies" before starting its workflow.
    const moved = await applyChargeMove(service.deps.db, { chargeId: pending.body.charge.id, from: 'pending', to: 'succeeded' });
    const [id] = moved.subscriptionIds!;
    expect((await service.deps.db('subscriptions').where({ id }).first()).workflow_started_at).toBeNull();

    await waitFor(async () => (await service.deps.db('subscriptions').where({ id }).first()).workflow_started_at !== null, 15_000, 'the sweeper');
    expect((await service.deps.temporal.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');
    await advance(id, { seconds: 32 * 86400 });
    const sub = await until(id, (s) => s.charges.length === 2 && s.charges[1].status !== 'created', 'the renewal');
    // A bank renewal goes pending, as the first charge did; it settles after sandbox_settlement_seconds.
    expect(sub.charges[1]).toMatchObject({ period: 1, status: 'pending' });
  }, 60_000);

  it('refuses, in the database, a second succeeded charge for one subscription period', async () => {
    const shop = await openShop(service);
    const { id, chargeId } = await subscribe(shop);
    const first = await service.deps.db('charges').where({ id: chargeId }).first();
    const twin = { ...first, id: `ch_twin${Date.now()}`, attempt_key: `${id}:0:twin`, threeds: null };
    await expect(service.deps.db('charges').insert(twin)).rejects.toThrow(/charges_subscription_period_paid_uq/);
  });

  it('the invariant check reports a doctored state (a paid period the subscription does not count)', async () => {
    const shop = await openShop(service);
    const { id, chargeId } = await subscribe(shop);
    expect(await subscriptionViolations(service.deps.db, shop.merchant.id)).toEqual([]);
    // Doctored inside a transaction that is rolled back, so no other test ever sees it.
    const trx = await service.deps.db.transaction();
    try {
      await trx('charges').where({ id: chargeId }).update({ subscription_period: 3 });
      expect(await subscriptionViolations(trx, shop.merchant.id)).toEqual([
        `${id}: charge ${chargeId} (succeeded) for period 3 is beyond the subscription's period`,
      ]);
    } finally {
      await trx.rollback();
    }
  });

  it('describes the subscription object in the OpenAPI document', async () => {
    const doc = (await request(service.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.components.schemas.Subscription.properties)).toEqual([
      'id', 'status', 'interval', 'interval_count', 'amount_cents', 'current_period_start', 'current_period_end',
      'next_charge_at', 'cancel_at_period_end', 'cancelled_at', 'cancellation_reason', 'failed_attempts',
    ]);
    expect(doc.components.schemas.Subscription.properties.status.enum).toEqual(['incomplete', 'active', 'past_due', 'cancelled']);
    expect(JSON.stringify(doc.components.schemas.Checkout.properties.subscription)).toContain('#/components/schemas/Subscription');
  });
});

describe('renewals on the test clock', () => {
  it('renews monthly 12 times in one advance, one charge per period, continuing as new every period', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['subscription.renewed'] });
    await setClock(shop, '2027-03-15T10:00:00Z');
    const { id, checkout } = await subscribe(shop, { price_cents: 2500 });
    const anchor = (await read(id)).current_period_start as string;

    const res = await advance(id, { to: '2028-03-15T11:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body.test_clock.now).toMatch(/^2028-03-15T11:00/);
    const sub = await until(id, (s) => s.charges.length === 13 && s.charges.every((c: { status: string }) => c.status === 'succeeded'), '12 renewals', 120_000);
    expect(sub).toMatchObject({ status: 'active', current_period_start: expect.stringMatching(/^2028-03-15T10:00/), current_period_end: expect.stringMatching(/^2028-04-15T10:00/) });
    expect(sub.charges.map((c: { period: number }) => c.period)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(anchor).toMatch(/^2027-03-15T10:00/);

    const renewals = await service.deps.db('charges').where({ subscription_id: id }).where('subscription_period', '>', 0).orderBy('subscription_period');
    expect(renewals.map((c) => c.attempt_key)).toEqual(Array.from({ length: 12 }, (_, i) => `${id}:${i + 1}:1`));
    expect(renewals.every((c) => c.amount_cents === 2500 && c.checkout_id === checkout.id && c.payment_method_id === sub.payment_method_id)).toBe(true);

    // Each renewal is reported with the same checkout.succeeded event and its period in data.subscription.
    const ends = await waitFor(() => {
      const found = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.succeeded');
      return found.length === 13 && found.map((r) => r.body.data.subscription.current_period_end as string).sort();
    }, 30_000, '13 checkout.succeeded');
    expect(ends.map((end) => end.slice(0, 10))).toEqual([
      '2027-04-15', '2027-05-15', '2027-06-15', '2027-07-15', '2027-08-15', '2027-09-15', '2027-10-15',
      '2027-11-15', '2027-12-15', '2028-01-15', '2028-02-15', '2028-03-15', '2028-04-15',
    ]);
    await waitFor(() => receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'subscription.renewed').length === 12, 30_000, '12 subscription.renewed');

    // Continue-as-new every period keeps the running history small whatever the number of periods.
    const history = await service.deps.temporal.workflow.getHandle(id).fetchHistory();
    expect(history.events!.length).toBeLessThan(40);
    // The wallet page of the original checkout still shows only its own attempt.
    expect((await walletView(service, checkout)).body.charges).toHaveLength(1);
  }, 180_000);

  it('keeps a 31 January anchor: renewals on 28 February, 31 March, 30 April', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-01-31T12:00:00Z');
    const { id } = await subscribe(shop);
    const expected = ['2027-02-28T12:00', '2027-03-31T12:00', '2027-04-30T12:00', '2027-05-31T12:00'];
    expect((await read(id)).current_period_end).toMatch(new RegExp('^' + expected[0]));
    for (let n = 1; n < expected.length; n++) {
      expect((await advance(id, { to: plus(expected[n - 1] + ':00Z', HOUR) })).status).toBe(200);
      const sub = await until(id, (s) => s.charges.length === n + 1 && s.charges[n].status === 'succeeded', `renewal ${n}`);
      expect(sub.current_period_start).toMatch(new RegExp('^' + expected[n - 1]));
      expect(sub.current_period_end).toMatch(new RegExp('^' + expected[n]));
    }
  }, 120_000);

  it('handles leap years: a 29 February 2028 yearly anchor renews on 28 February until 2032', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2028-02-29T08:00:00Z');
    const { id } = await subscribe(shop, { interval: 'year' });
    expect((await read(id)).current_period_end).toMatch(/^2029-02-28T08:00/);
    await advance(id, { to: '2031-03-01T00:00:00Z' });
    const sub = await until(id, (s) => s.charges.length === 4 && s.charges[3].status === 'succeeded', 'three yearly renewals');
    expect(sub.current_period_start).toMatch(/^2031-02-28T08:00/);
    expect(sub.current_period_end).toMatch(/^2032-02-29T08:00/);
  }, 120_000);

  it('runs a subscription whose customer clock starts in the past, and refuses a clock outside 2000-2099', async () => {
    const shop = await openShop(service);
    expect((await admin('POST', `/customers/${shop.customerId}/test_clock`, { now: '1999-12-31T00:00:00Z' })).status).toBe(422);
    await setClock(shop, '2021-06-15T00:00:00Z');
    const { id } = await subscribe(shop, { interval: 'week' });
    expect((await read(id)).test_clock.now).toMatch(/^2021-06-15T00:0/);
    expect((await advance(id, { seconds: 7 * 86400 })).status).toBe(200);
    const sub = await until(id, (s) => s.charges.length === 2 && s.charges[1].status === 'succeeded', 'the weekly renewal');
    expect(sub.current_period_end).toMatch(/^2021-06-29T00:0/);
  });

  it('renews through the processor that took the first charge, even after the merchant switches processors', async () => {
    const shop = await openShop(service, { card_processor: 'sandbox_beta' });
    const { id } = await subscribe(shop);
    await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { card_processor: 'sandbox_gamma' });
    // The saved card then pays a one-off deposit through the new processor: renewals still go
    // through the one that tokenized it (they followed the method's latest charge; found by an audit).
    const { payment_method_id: saved } = await read(id);
    const oneOff = await attempt(service, await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 500 }), { payment_method: { saved_payment_method_id: saved } });
    expect(oneOff.status).toBe(201);
    expect((await service.deps.db('charges').where({ id: oneOff.body.charge.id }).first()).processor).toBe('sandbox_gamma');
    await advance(id, { seconds: 32 * 86400 });
    await until(id, (s) => s.charges.length === 2 && s.charges[1].status === 'succeeded', 'the renewal');
    const processors = (await service.deps.db('charges').where({ subscription_id: id }).orderBy('subscription_period')).map((c) => c.processor);
    expect(processors).toEqual(['sandbox_beta', 'sandbox_beta']);
  });

  // Audit regression: after an advance to just before the due time, the renewal waited for the
  // real timer set before the advance (a week), so real time never carried the clock past it.
  it('renews by real time alone after an advance to 2 s before the charge is due', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-06-01T00:00:00Z');
    const { id } = await subscribe(shop, { interval: 'week' });
    const due = (await read(id)).next_charge_at as string;
    expect(due).toMatch(/^2027-06-08T00:00/);
    expect((await advance(id, { to: plus(due, -2_000) })).status).toBe(200);
    const advancedAt = Date.now();
    expect((await read(id)).charges).toHaveLength(1);
    const renewed = await until(id, (s) => s.charges.length === 2 && s.charges[1].status === 'succeeded', 'the renewal by real time', 15_000);
    expect(Date.now() - advancedAt).toBeLessThan(15_000);
    expect(renewed).toMatchObject({ status: 'active', current_period_start: expect.stringMatching(/^2027-06-08T00:00/), next_charge_at: expect.stringMatching(/^2027-06-15T00:00/) });
  }, 60_000);

  it('refuses a clock that goes back, a test clock for production, unknown subscriptions', async () => {
    const shop = await openShop(service);
    const { id } = await subscribe(shop);
    const back = await advance(id, { to: '2020-01-01T00:00:00Z' });
    expect(back.status).toBe(422);
    expect(back.body).toEqual({ error: 'A test clock only moves forward.', hint: expect.stringContaining('clock reads'), request_id: expect.any(String) });
    expect((await advance(id, { seconds: 0 })).status).toBe(422);
    expect((await advance(id, { seconds: 10, to: '2030-01-01T00:00:00Z' })).status).toBe(422);
    expect((await advance(id, {})).status).toBe(422);
    expect((await advance('sub_nope', { seconds: 10 })).status).toBe(404);
    expect((await admin('GET', '/subscriptions/sub_nope')).status).toBe(404);

    const prod = await openShop(service, {}, 'production');
    const { id: real } = await subscribe(prod, { card: '5555555555554444' });
    const refused = await advance(real, { seconds: 86400 * 40 });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('Test clocks are for sandbox subscriptions only.');
    expect((await admin('POST', `/customers/${prod.customerId}/test_clock`, { now: '2030-01-01T00:00:00Z' })).status).toBe(422);
    expect((await read(real)).test_clock).toBeNull();
    expect((await read(real)).charges).toHaveLength(1);
  });
});

describe('dunning', () => {
  it('retries a failed renewal 1, 3 and 5 days after it fell due (past_due), then cancels it', async () => {
    const shop = await openShop(service, {
      webhook_url: receiver.url,
      enabled_events: ['checkout.failed', 'subscription.payment_failed', 'subscription.cancelled'],
      subscription_retry_days: [1, 3, 5],
    });
    await setClock(shop, '2027-05-10T09:00:00Z');
    const { id, checkout } = await subscribe(shop, { card: '4000000000000341' });
    const due = (await read(id)).current_period_end as string;
    expect(due).toMatch(/^2027-06-10T09:00/);

    await advance(id, { to: plus(due, HOUR) });
    let sub = await until(id, (s) => s.failed_attempts === 1, 'the first failure');
    expect(sub).toMatchObject({ status: 'past_due', next_charge_at: plus(due, DAY), current_period_end: due });
    await advance(id, { to: plus(due, DAY + HOUR) });
    sub = await until(id, (s) => s.failed_attempts === 2, 'the first retry');
    expect(sub).toMatchObject({ status: 'past_due', next_charge_at: plus(due, 3 * DAY) });
    await advance(id, { to: plus(due, 3 * DAY + HOUR) });
    sub = await until(id, (s) => s.failed_attempts === 3, 'the second retry');
    expect(sub).toMatchObject({ status: 'past_due', next_charge_at: plus(due, 5 * DAY) });
    await advance(id, { to: plus(due, 5 * DAY + HOUR) });
    sub = await until(id, (s) => s.status === 'cancelled', 'the last retry');
    expect(sub).toMatchObject({ failed_attempts: 4, next_charge_at: null, cancellation_reason: 'payment_failed', cancelled_at: expect.stringMatching(/^2027-06-15T10:00/) });
    expect(sub.charges.map((c: { period: number; status: string; failure_code: string }) => [c.period, c.status, c.failure_code])).toEqual([
      [0, 'succeeded', null], [1, 'failed', 'card_declined'], [1, 'failed', 'card_declined'], [1, 'failed', 'card_declined'], [1, 'failed', 'card_declined'],
    ]);

    // Each step is visible in events: checkout.failed and subscription.payment_failed per attempt, then the cancellation.
    const types = await waitFor(() => {
      const found = receiver.forCheckout(checkout.id).map((r) => r.body.type as string);
      // Deliveries are workflows of their own and arrive in any order: wait for every one asserted below.
      const count = (type: string) => found.filter((t) => t === type).length;
      return count('subscription.cancelled') === 1 && count('checkout.failed') >= 4 && count('subscription.payment_failed') >= 4 && found;
    }, 30_000, 'the dunning events');
    expect(types.filter((t) => t === 'checkout.failed')).toHaveLength(4);
    expect(types.filter((t) => t === 'subscription.payment_failed')).toHaveLength(4);
    const statuses = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.failed').map((r) => r.body.data.subscription.status).sort();
    expect(statuses).toEqual(['cancelled', 'past_due', 'past_due', 'past_due']);

    // Cancelled for good: no charge however far the clock would go, and the workflow has ended.
    expect((await advance(id, { seconds: 400 * 86400 })).status).toBe(422);
    await waitFor(async () => (await service.deps.temporal.workflow.getHandle(id).describe()).status.name === 'COMPLETED', 15_000, 'the workflow to end');
    expect(await service.deps.db('charges').where({ subscription_id: id })).toHaveLength(5);
  }, 180_000);
});

/** A monthly 9.00 subscription whose bank first charge the processor simulator settled: its id and when its first renewal falls due. */
async function bankSubscription(shop: Shop): Promise<{ id: string; due: string }> {
  const checkout = await createCheckout(service, shop, {
    type: 'deposit',
    line_items: [{ name: 'Plan', price_cents: 900, quantity: 1 }],
    subscription_data: { interval: 'month', interval_count: 1 },
  });
  const first = await attempt(service, checkout, { payment_method: BANK() });
  expect(first.body.charge.status).toBe('pending');
  expect((await admin('POST', `/sandbox/charges/${first.body.charge.id}/transition`, { to: 'succeeded' })).status).toBe(200);
  const row = await waitFor(async () => service.deps.db('subscriptions').where({ checkout_id: checkout.id }).first(), 15_000, 'the subscription');
  const id = row.id as string;
  return { id, due: (await read(id)).current_period_end as string };
}

/** Moves the subscription's clock past `due` and waits for its first renewal, which the bank keeps pending. */
async function pendingRenewal(id: string, due: string): Promise<{ id: string }> {
  await advance(id, { to: plus(due, HOUR) });
  return waitFor(async () => service.deps.db('charges').where({ subscription_id: id, subscription_period: 1, status: 'pending' }).first(), 20_000, 'the pending renewal');
}

describe('a renewal cancelled while pending', () => {
  // Audit regression: only failed was dunned, so a bank renewal the processor cancelled while
  // pending left the subscription due on an ended charge; each new run found that same charge
  // (same attempt key) and continued as new at once, for ever, never charging again.
  it('is dunned like a failure: past_due, retried on schedule with a new charge, and the workflow waits', async () => {
    const shop = await openShop(service, { sandbox_settlement_seconds: 4, subscription_retry_days: [2, 4] });
    await setClock(shop, '2027-10-01T00:00:00Z');
    const { id, due } = await bankSubscription(shop);

    // The renewal goes pending; the processor cancels it before it settles (an edge the state table lists).
    const renewal = await pendingRenewal(id, due);
    const { runId: renewalRun } = await service.deps.temporal.workflow.getHandle(id).describe();
    const moved = await admin('POST', `/sandbox/charges/${renewal.id}/transition`, { to: 'cancelled' });
    expect(moved.status).toBe(200);

    let sub = await until(id, (s) => s.failed_attempts === 1, 'the cancelled renewal to be dunned');
    expect(sub).toMatchObject({ status: 'past_due', next_charge_at: plus(due, 2 * DAY), current_period_end: due });
    // Its settlement wait over, the workflow continues as new once and then waits for the retry's
    // date (before the fix it continued as new again at once, run after run).
    const settled = await waitFor(async () => {
      const { runId } = await service.deps.temporal.workflow.getHandle(id).describe();
      return runId !== renewalRun && runId;
    }, 20_000, 'the run after the settlement wait');
    await new Promise((r) => setTimeout(r, 3000));
    const { runId: latest, status } = await service.deps.temporal.workflow.getHandle(id).describe();
    expect({ latest, status: status.name }).toEqual({ latest: settled, status: 'RUNNING' });

    // The retry is a new charge for the same period, through the same dunning schedule.
    await advance(id, { to: plus(due, 2 * DAY + HOUR) });
    sub = await until(id, (s) => s.charges.length === 3 && s.charges[2].status !== 'created', 'the retry charge at the processor');
    expect(sub.charges.map((c: { period: number; status: string }) => [c.period, c.status])).toEqual([[0, 'succeeded'], [1, 'cancelled'], [1, 'pending']]);
  }, 120_000);
});

describe('a pending renewal the simulator settles', () => {
  // Audit regression: the subscription workflow slept out the whole sandbox settlement time of a
  // pending renewal even after the simulator had settled it (the checkout workflow wakes on the
  // move), and a cancellation waits for the renewal in flight: it hung that long (up to an hour).
  it('stops waiting at the move: a cancellation answers at once, not after sandbox_settlement_seconds', async () => {
    const shop = await openShop(service, { sandbox_settlement_seconds: 90 });
    await setClock(shop, '2027-11-01T00:00:00Z');
    const { id, due } = await bankSubscription(shop);

    const renewal = await pendingRenewal(id, due);
    expect((await admin('POST', `/sandbox/charges/${renewal.id}/transition`, { to: 'succeeded' })).status).toBe(200);
    await until(id, (s) => s.current_period_start === due, 'the paid renewal');

    const started = Date.now();
    const cancelled = await admin('POST', `/subscriptions/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', current_period_start: due });
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 150_000);
});

describe('recovering from past_due', () => {
  it('charges the retry to a new saved card the merchant switched to: active again, the period it paid starts', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['subscription.updated', 'subscription.renewed'], subscription_retry_days: [2] });
    await setClock(shop, '2027-06-01T00:00:00Z');
    const { id, checkout } = await subscribe(shop, { card: '4000000000000341' });
    const due = (await read(id)).current_period_end as string;
    await advance(id, { to: plus(due, HOUR) });
    await until(id, (s) => s.status === 'past_due', 'the failed renewal');

    // The customer saves a new card on another checkout; the merchant points the subscription at it.
    const other = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    const saved = await attempt(service, other, { payment_method: CARD('5555555555554444'), save_payment_method: true });
    const newMethod = saved.body.charge.payment_method.id as string;
    const refused = await admin('POST', `/subscriptions/${id}/payment_method`, { payment_method_id: `${(await read(id)).payment_method_id}x` });
    expect(refused.status).toBe(422);
    const switched = await admin('POST', `/subscriptions/${id}/payment_method`, { payment_method_id: newMethod });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ payment_method_id: newMethod, status: 'past_due', next_charge_at: plus(due, 2 * DAY) });
    // One entry in the merchant's audit log, for the change made (the refused one wrote none).
    const changes = await service.deps.db('audit_log').where({ target: id, action: 'subscription.payment_method_changed' });
    expect(changes.map((e: { actor: string; details: { to: string } }) => [e.actor, e.details.to])).toEqual([['admin', newMethod]]);

    await advance(id, { to: plus(due, 2 * DAY + HOUR) });
    const sub = await until(id, (s) => s.status === 'active', 'the successful retry');
    expect(sub).toMatchObject({ failed_attempts: 0, current_period_start: due, current_period_end: expect.stringMatching(/^2027-08-01T00:00/) });
    expect(sub.charges.map((c: { period: number; status: string }) => [c.period, c.status])).toEqual([[0, 'succeeded'], [1, 'failed'], [1, 'succeeded']]);
    const renewal = await service.deps.db('charges').where({ subscription_id: id, subscription_period: 1, status: 'succeeded' }).first();
    expect(renewal.payment_method_id).toBe(newMethod);
    await waitFor(() => ['subscription.updated', 'subscription.renewed'].every((t) => receiver.forCheckout(checkout.id).some((r) => r.body.type === t)), 15_000, 'the events');
  }, 90_000);
});

describe('cancelling', () => {
  it('at period end: stays active, then ends at the period end without charging', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['subscription.updated', 'subscription.cancelled'] });
    await setClock(shop, '2027-07-01T00:00:00Z');
    const { id, checkout } = await subscribe(shop, { interval: 'week' });
    const res = await admin('POST', `/subscriptions/${id}/cancel`, { at_period_end: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', cancel_at_period_end: true, cancelled_at: null, next_charge_at: expect.stringMatching(/^2027-07-08T00:00/) });

    await advance(id, { to: '2027-07-20T00:00:00Z' });
    const sub = await until(id, (s) => s.status === 'cancelled', 'the end of the period');
    expect(sub).toMatchObject({ cancelled_at: expect.stringMatching(/^2027-07-08T00:00/), cancellation_reason: 'requested', next_charge_at: null });
    expect(sub.charges).toHaveLength(1);
    const types = await waitFor(() => {
      const found = receiver.forCheckout(checkout.id).map((r) => r.body.type as string);
      return found.includes('subscription.cancelled') && found;
    });
    expect(types.sort()).toEqual(['checkout.succeeded', 'subscription.cancelled', 'subscription.updated']);
  }, 60_000);

  // Audit regression: like a renewal, the end at period end waited for a real timer set before the advance.
  it('at period end: ends by real time alone after an advance to 2 s before the period end', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-07-01T00:00:00Z');
    const { id } = await subscribe(shop, { interval: 'week' });
    const cancel = await admin('POST', `/subscriptions/${id}/cancel`, { at_period_end: true });
    expect(cancel.body).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect((await advance(id, { to: plus(cancel.body.current_period_end, -2_000) })).status).toBe(200);
    const advancedAt = Date.now();
    expect((await read(id)).status).toBe('active');
    const ended = await until(id, (s) => s.status === 'cancelled', 'the end of the period by real time', 15_000);
    expect(Date.now() - advancedAt).toBeLessThan(15_000);
    expect(ended).toMatchObject({ cancelled_at: expect.stringMatching(/^2027-07-08T00:00/), cancellation_reason: 'requested', next_charge_at: null });
    expect(ended.charges).toHaveLength(1);
  }, 60_000);

  it('now: cancelled at once, never charged again, a second cancel is refused', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-08-01T00:00:00Z');
    const { id } = await subscribe(shop);
    const res = await admin('POST', `/subscriptions/${id}/cancel`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', cancellation_reason: 'requested', next_charge_at: null, cancelled_at: expect.stringMatching(/^2027-08-01T00:0/) });
    const again = await admin('POST', `/subscriptions/${id}/cancel`, { at_period_end: true });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('Subscription already cancelled.');
    // The cancellation's entry in the merchant's audit log, committed with it; the refused second one wrote none.
    const entries = await service.deps.db('audit_log').where({ target: id });
    expect(entries.map((e: { actor: string; action: string; created_at: Date }) => [e.actor, e.action])).toEqual([['admin', 'subscription.cancelled']]);
    expect((await advance(id, { seconds: 90 * 86400 })).status).toBe(422);
    await waitFor(async () => (await service.deps.temporal.workflow.getHandle(id).describe()).status.name === 'COMPLETED', 15_000, 'the workflow to end');
    expect(await service.deps.db('charges').where({ subscription_id: id })).toHaveLength(1);
    expect((await admin('POST', `/subscriptions/${id}/cancel`, { now: true })).status).toBe(422);
  });

  // Audit regression: the admin API parsed only a JSON Content-Type, and the cancel route read an
  // unparsed body as no body, whose default is "now": {"at_period_end": true} sent with curl's
  // default form type (or text/plain) ended the subscription at once, for good. It is read as JSON now.
  it.each(['application/x-www-form-urlencoded', 'text/plain'])('reads a JSON body sent as %s: at_period_end is honoured, not taken for now', async (type) => {
    const shop = await openShop(service);
    const { id } = await subscribe(shop);
    const res = await request(service.baseUrl, 'POST', `/admin/v1/subscriptions/${id}/cancel`, {
      token: service.adminToken,
      rawBody: JSON.stringify({ at_period_end: true }),
      headers: { 'content-type': type },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', cancel_at_period_end: true, cancelled_at: null });
    expect(await read(id)).toMatchObject({ status: 'active', cancel_at_period_end: true, cancelled_at: null });
    // A body that is not JSON is 400 and changes nothing.
    const garbled = await request(service.baseUrl, 'POST', `/admin/v1/subscriptions/${id}/cancel`, { token: service.adminToken, rawBody: 'at_period_end=true', headers: { 'content-type': type } });
    expect(garbled.status).toBe(400);
    expect(await read(id)).toMatchObject({ status: 'active', cancelled_at: null });
    // No body at all still means now, as documented.
    expect((await admin('POST', `/subscriptions/${id}/cancel`)).body).toMatchObject({ status: 'cancelled', cancellation_reason: 'requested' });
  });

  it('lists subscriptions by merchant, customer and status', async () => {
    const shop = await openShop(service);
    const { id: kept } = await subscribe(shop);
    const { id: ended } = await subscribe(shop);
    await admin('POST', `/subscriptions/${ended}/cancel`, {});
    const all = await admin('GET', `/subscriptions?merchant_id=${shop.merchant.id}`);
    expect(all.body.results.map((s: { id: string }) => s.id).sort()).toEqual([kept, ended].sort());
    const active = await admin('GET', `/subscriptions?customer_id=${shop.customerId}&status=active`);
    expect(active.body.results.map((s: { id: string }) => s.id)).toEqual([kept]);
    expect((await admin('GET', '/subscriptions?status=bogus')).status).toBe(422);
  });
});
