// Money rules under sequences no single-flow test walks: each test fails on the code
// before the fix it names.
import { insertChargeWhileLive } from '../../../src/storage/charges';
import { admitAttempt, releaseAttemptSlot } from '../../../src/storage/checkouts';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, createdWithdrawalCharge, getCharge, openShop, recordedEvents, waitFor, walletView, type CreatedCheckout, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));
beforeEach(() => {
  receiver.responder = () => ({ status: 200 });
});

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, path, { token: service.adminToken, body });
const chargesOf = (checkoutId: string) => service.deps.db('charges').where({ checkout_id: checkoutId }).orderBy('created_at');
const transition = (chargeId: string, body: Record<string, unknown>) => admin('POST', `/admin/v1/sandbox/charges/${chargeId}/transition`, body);

async function reviewShop(settings: Record<string, unknown> = {}): Promise<Shop> {
  return openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 }, sandbox_settlement_seconds: 1, ...settings });
}

/** A withdrawal of 900 cents whose card attempt is in review (202): its workflow waits for the decision. */
async function withdrawalInReview(settings: Record<string, unknown> = {}): Promise<CreatedCheckout> {
  const checkout = await createCheckout(service, await reviewShop(settings), { type: 'withdrawal', fixed_amount_cents: 900 });
  expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(202);
  return checkout;
}

/** Attempt, approve its review, and wait until its charge has an outcome; answers the charge row. */
async function approvedAttempt(checkout: CreatedCheckout, body: Record<string, unknown>) {
  const res = await attempt(service, checkout, body);
  expect(res.status).toBe(202);
  const approve = await admin('POST', `/admin/v1/reviews/${res.body.review.id}/approve`);
  expect(approve.status).toBe(200);
  return waitFor(async () => {
    const [charge] = await chargesOf(checkout.id);
    return charge && !['created', 'held', 'pending'].includes(charge.status) ? charge : undefined;
  });
}

describe('an approval covers exactly one charge (point 1)', () => {
  it('the issue: after an approved 500 is refused at the hold, a 9,000 attempt on another card is refused with 422 and nothing is held or paid', async () => {
    const shop = await reviewShop({ enabled_events: ['checkout.failed'] });
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 10_000 });
    const first = await approvedAttempt(checkout, { amount_cents: 500, payment_method: CARD() });
    expect(first).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect((await walletView(service, checkout)).body.state).toBe('open');

    receiver.responder = () => ({ status: 200 });
    const second = await attempt(service, checkout, { amount_cents: 9_000, payment_method: CARD('5555555555554444') });
    expect(second.status).toBe(422);
    expect(second.body.error).toBe('This checkout already used its one review.');
    expect(second.body.hint).toMatch(/new checkout/);
    const charges = await chargesOf(checkout.id);
    expect(charges).toHaveLength(1);
    const review = await service.deps.db('reviews').where({ checkout_id: checkout.id }).first();
    expect(review).toMatchObject({ status: 'approved', charge_id: first.id, amount_cents: 500 });
    const holds = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold');
    expect(holds).toHaveLength(1);
    expect(holds[0]!.body.data.charge.amount_cents).toBe(500);

    // The wallet tells the truth: the review was used, and by which charge.
    const view = (await walletView(service, checkout)).body;
    expect(view.review).toEqual({ id: review.id, status: 'approved', amount_cents: 500, charge_id: first.id });
    expect(view.review_threshold_cents).toBe(100);
    // Below the threshold no review is needed, so the checkout still takes those.
    const small = await attempt(service, checkout, { amount_cents: 99, payment_method: CARD() });
    expect(small.status).toBe(201);
    await waitFor(async () => (await getCharge(service, shop, small.body.charge.id)).body.status === 'succeeded');
  });

  it('a preset withdrawal whose approved payout fails is not paid again under the old approval', async () => {
    const shop = await reviewShop();
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 700 });
    // 4000000000000002: the hold is accepted, then the card payout is declined (held -> failed).
    const first = await approvedAttempt(checkout, { payment_method: CARD('4000000000000002') });
    expect(first.status).toBe('failed');
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.release_hold'));
    const again = await attempt(service, checkout, { payment_method: CARD() });
    expect(again.status).toBe(422);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  });

  it('the workflow refuses a second review itself (an update sent past the API), with the REVIEW_SPENT type', async () => {
    const shop = await reviewShop();
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 10_000 });
    const first = await approvedAttempt(checkout, { amount_cents: 500, payment_method: CARD() });
    const { submitAttemptUpdate } = await import('../../../workflows/contract');
    const { failureType } = await import('../../../workflows/contract');
    const send = () =>
      service.deps.temporal.workflow
        .getHandle(checkout.id)
        .executeUpdate(submitAttemptUpdate, { args: [{ attemptId: `direct-${checkout.id}`, paymentMethodId: first.payment_method_id, amountCents: 9_000 }] })
        .then(() => null, (e: unknown) => e);
    // The failed charge commits a moment before the workflow ends that attempt: until then it refuses
    // any update as in flight (the wallet API sends such a refusal again; this update bypasses it).
    const error = await waitFor(async () => {
      const answer = await send();
      return failureType(answer) === 'ATTEMPT_IN_FLIGHT' ? undefined : answer;
    }, 5_000, 'the workflow to end the approved attempt');
    expect(failureType(error)).toBe('REVIEW_SPENT');
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  });
});

describe('attempts are bounded and admitted one at a time (point 3)', () => {
  it('refuses the attempt after the merchant limit with 422, and the checkout still expires', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, max_attempts_per_checkout: 3, checkout_expiry_seconds: 6, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    for (let i = 0; i < 3; i += 1) {
      const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
      expect(res.status).toBe(201);
      expect(res.body.charge.status).toBe('failed');
    }
    const fourth = await attempt(service, checkout, { payment_method: CARD() });
    expect(fourth.status).toBe(422);
    expect(fourth.body.error).toMatch(/limit of payment attempts/);
    expect(await chargesOf(checkout.id)).toHaveLength(3);
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.expired'), 20_000, 'checkout.expired');
    // The history stays bounded: three attempts and the expiry, far below Temporal's limits.
    const history = await service.deps.temporal.workflow.getHandle(checkout.id).fetchHistory();
    expect(history.events!.length).toBeLessThan(150);
  });

  it('five concurrent attempts on one checkout make one charge and one payment method', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1500 });
    const before = await service.deps.db('payment_methods').where({ customer_id: shop.customerId }).count<{ count: string }[]>('* as count');
    const results = await Promise.all(Array.from({ length: 5 }, () => attempt(service, checkout, { payment_method: CARD(), save_payment_method: true })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(4);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
    const after = await service.deps.db('payment_methods').where({ customer_id: shop.customerId }).count<{ count: string }[]>('* as count');
    expect(Number(after[0]!.count) - Number(before[0]!.count)).toBe(1);
  });

  it('an attempt the workflow refuses (a KYC gate blocks it) leaves no payment method behind (found by the property suite)', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, kyc_required_for: ['deposit'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(res.status).toBe(422);
    expect(await chargesOf(checkout.id)).toHaveLength(0);
    expect(await service.deps.db('payment_methods').where({ customer_id: shop.customerId })).toHaveLength(0);
  });

  it('velocity limits: a card over its hourly limit across checkouts is 429 with Retry-After; off by default in sandbox, on in production', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, velocity_limits: { enabled: true, card_attempts_per_hour: 2, ip_attempts_per_hour: 100 } });
    const card = CARD('4000000000009995');
    for (let i = 0; i < 2; i += 1) {
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
      expect((await attempt(service, checkout, { payment_method: card })).status).toBe(201);
    }
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const third = await attempt(service, checkout, { payment_method: card });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: expect.stringMatching(/Too many payment attempts/), hint: expect.any(String), request_id: expect.any(String) });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await chargesOf(checkout.id)).toHaveLength(0);
    // Another card still pays on the same checkout.
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);

    const sandbox = await admin('GET', `/admin/v1/merchants/${(await openShop(service)).merchant.id}`);
    expect(sandbox.body.settings.velocity_limits.enabled).toBe(false);
    const production = await openShop(service, {}, 'production');
    expect((await admin('GET', `/admin/v1/merchants/${production.merchant.id}`)).body.settings.velocity_limits).toEqual({ enabled: true, card_attempts_per_hour: 10, ip_attempts_per_hour: 30, customer_attempts_per_hour: null });
  });

  it('velocity limits per client IP', async () => {
    const shop = await openShop(service, { velocity_limits: { enabled: true, card_attempts_per_hour: 100, ip_attempts_per_hour: 2 } });
    const numbers = ['4000000000000002', '4000000000009995', '4000000000000069'];
    const answers = [];
    for (const number of numbers) {
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
      answers.push((await attempt(service, checkout, { payment_method: CARD(number) })).status);
    }
    expect(answers).toEqual([201, 201, 429]);
  });
});

describe('an attempt whose request gave up makes no charge later', () => {
  it("frees only its own slot, and its charge is refused once the customer's next attempt holds the checkout", async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const db = service.deps.db;
    const [pm] = await db('payment_methods').insert({
      id: `pm_${checkout.id}`, merchant_id: shop.merchant.id, customer_id: shop.customerId, payment_type: 'card',
      details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } }), fingerprint: 'fp', processor_token: 'sbx_approve_x',
    }).returning('*');
    const charge = (attemptKey: string) => ({
      id: `ch_${checkout.id}_${attemptKey}`, merchant_id: shop.merchant.id, checkout_id: checkout.id, customer_id: shop.customerId, payment_method_id: pm.id,
      attempt_key: `${checkout.id}-${attemptKey}`, amount_cents: 1000, currency: 'USD', transaction_type: 'credit' as const, processor: 'sandbox_alpha',
    });
    const key = (attempt: string) => `${checkout.id}-${attempt}`;
    // Attempt A is admitted, its request gives up (503) and frees the slot; attempt B is admitted.
    expect(await admitAttempt(db, checkout.id, key('a'))).toBeNull();
    expect(await admitAttempt(db, checkout.id, key('b'))).toBe('attempt_in_flight');
    await releaseAttemptSlot(db, checkout.id, key('a'));
    expect(await admitAttempt(db, checkout.id, key('b'))).toBeNull();
    // A's late release and A's late charge (its workflow ran it after all) leave B's slot alone and make nothing.
    await releaseAttemptSlot(db, checkout.id, key('a'));
    expect(await insertChargeWhileLive(db, charge('a'), { slotHeld: true })).toBeUndefined();
    expect(await db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    expect(await db('checkouts').where({ id: checkout.id }).first()).toMatchObject({ attempt_slot_key: key('b') });
    // B's charge is made, and frees the slot.
    expect(await insertChargeWhileLive(db, charge('b'), { slotHeld: true })).toMatchObject({ inserted: true, charge: { attempt_key: key('b'), status: 'created' } });
    expect(await db('checkouts').where({ id: checkout.id }).first()).toMatchObject({ attempt_slot_until: null, attempt_slot_key: null });
  });
});

describe('holds the merchant accepted are never dropped (points 4 and 7)', () => {
  it('a held bank payout that fails from pending sends checkout.release_hold (and the opt-in checkout.failed)', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, sandbox_settlement_seconds: 1, enabled_events: ['checkout.failed', 'checkout.pending'] });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2500 });
    const res = await attempt(service, checkout, { payment_method: BANK('000123450002') });
    expect(res.status).toBe(201);
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'failed');
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.release_hold'));
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.hold', 'checkout.pending', 'checkout.failed', 'checkout.release_hold']);
    const release = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.release_hold')!;
    expect(release.body.data.charge).toMatchObject({ status: 'failed', from_status: 'pending' });
  });

  // The hold was spent when the payout succeeded: a reversal afterwards is the table's
  // checkout.failed alone. A release as well had a merchant that credits the held amount back on a
  // release, and the reversed amount on checkout.failed, credit the customer twice.
  it('a card payout reversed after it succeeded sends checkout.failed (from succeeded) and no checkout.release_hold', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.failed'] });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2700 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'succeeded');
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.succeeded'));

    const reversed = await transition(res.body.charge.id, { to: 'failed', failure_code: 'payout_reversed' });
    expect(reversed.status).toBe(200);
    expect(reversed.body).toMatchObject({ status: 'failed', failure_code: 'payout_reversed' });
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.failed'));
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.hold', 'checkout.succeeded', 'checkout.failed']);
    // What the merchant heard, in order: the reversal is one checkout.failed from succeeded.
    const heard = receiver.forCheckout(checkout.id).map((r) => `${r.body.type}:${r.body.data.charge.from_status}`);
    expect(heard).toEqual(['checkout.hold:created', 'checkout.succeeded:held', 'checkout.failed:succeeded']);
    expect((await chargesOf(checkout.id))[0].hold_released_at).toBeNull();
  });

  it('a charge failed by the processor while the merchant accepts its hold gets checkout.release_hold, and no payout', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    let failedDuringHold: { status: number } | undefined;
    // The processor fails the charge while the merchant is still answering its hold, with 200.
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold') failedDuringHold = await transition(r.body.data.charge.id, { to: 'failed' });
      return { status: 200 };
    };
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 4100 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    expect(failedDuringHold!.status).toBe(200);
    expect(res.body.charge.status).toBe('failed');
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.release_hold'));
    const [charge] = await chargesOf(checkout.id);
    expect(charge.hold_accepted_at).not.toBeNull();
    expect((await walletView(service, checkout)).body.state).toBe('open');
  });

  const withdrawalCharge = (shop: Shop, holdSent: boolean) => createdWithdrawalCharge(service, shop, { holdSent });

  it('when the hold activity failed after sending, the recorded answer decides: accepted is held, unknown fails and releases', async () => {
    const { createHoldActivities } = await import('../../../activities/holds');
    const holds = createHoldActivities(service.deps);
    const shop = await openShop(service, { webhook_url: receiver.url });
    const accepted = await withdrawalCharge(shop, true);
    await service.deps.db('charges').where({ id: accepted.charge.id }).update({ hold_accepted_at: new Date() });
    expect((await holds.resolveHold({ chargeId: accepted.charge.id, accepted: false, answered: false })).status).toBe('held');

    const unknown = await withdrawalCharge(shop, true);
    expect((await holds.resolveHold({ chargeId: unknown.charge.id, accepted: false, answered: false })).status).toBe('failed');
    expect((await recordedEvents(service, unknown.checkout.id)).map((e) => e.type)).toEqual(['checkout.failed', 'checkout.release_hold']);
  });

  // Audit regression: a hold activity that failed after the merchant's refusal was recorded (a worker
  // that died before returning it) was resolved as one whose answer was never learnt: the charge
  // failed with checkout.release_hold, so a merchant crediting the held amount back on a release
  // credited a customer whose withdrawal it had refused, and held nothing for.
  it('when the hold activity failed after the merchant refused, the recorded refusal decides: failed, no release', async () => {
    const { createHoldActivities } = await import('../../../activities/holds');
    const holds = createHoldActivities(service.deps);
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.failed'] });
    const { checkout, charge } = await withdrawalCharge(shop, false);
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    expect(await holds.placeHold({ chargeId: charge.id })).toMatchObject({ accepted: false, sent: true });
    // The activity's answer lost: the workflow resolves the hold without it.
    const resolved = await holds.resolveHold({ chargeId: charge.id, accepted: false, answered: false, sentByOther: false });
    expect(resolved.status).toBe('failed');
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.hold', 'checkout.failed']);
    expect((await service.deps.db('charges').where({ id: charge.id }).first()).hold_released_at).toBeNull();
  });

  // Audit regression: the merchant's 2xx was written to the event log first and to the charge
  // after, so a failure in between (a database error on the log line, a worker that died) lost an
  // accepted hold: the charge failed with insufficient_funds although the contract says it proceeds.
  it('a 2xx is written to the charge before its attempt is logged: a failure in between still holds the charge', async () => {
    const { createHoldActivities } = await import('../../../activities/holds');
    const holds = createHoldActivities(service.deps);
    const { db } = service.deps;
    const shop = await openShop(service, { webhook_url: `${receiver.url}?lose-attempt-log` });
    const { checkout, charge } = await withdrawalCharge(shop, false);
    await db.raw(`CREATE FUNCTION lose_attempt_log() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.url LIKE '%lose-attempt-log%' THEN RAISE EXCEPTION 'attempt log unavailable'; END IF; RETURN NEW; END $$`);
    await db.raw('CREATE TRIGGER lose_attempt_log BEFORE INSERT ON event_delivery_attempts FOR EACH ROW EXECUTE FUNCTION lose_attempt_log()');
    try {
      await expect(holds.placeHold({ chargeId: charge.id })).rejects.toThrow('attempt log unavailable');
    } finally {
      await db.raw('DROP TRIGGER lose_attempt_log ON event_delivery_attempts');
      await db.raw('DROP FUNCTION lose_attempt_log()');
    }
    // The activity failed: the workflow resolves the hold from what was recorded.
    expect((await holds.resolveHold({ chargeId: charge.id, accepted: false, answered: false, sentByOther: false })).status).toBe('held');
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.hold']);
  });

  // Audit regression: a hold activity that outlived its time limit (the workflow gave up on it and
  // failed the charge, releasing the hold) and then learnt the merchant's 2xx recorded a second
  // checkout.release_hold. A merchant crediting the held amount back on each release credited it twice.
  it('a hold accepted after the workflow gave up on its answer releases the hold once, not twice', async () => {
    const { createHoldActivities } = await import('../../../activities/holds');
    const holds = createHoldActivities(service.deps);
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.failed'] });
    const { checkout, charge } = await withdrawalCharge(shop, false);
    // While the merchant is still answering, the workflow (its hold activity timed out) fails the charge.
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold') await holds.resolveHold({ chargeId: charge.id, accepted: false, answered: false });
      return { status: 200 };
    };
    const answer = await holds.placeHold({ chargeId: charge.id });
    expect(answer).toMatchObject({ accepted: true, sent: true });
    const row = await service.deps.db('charges').where({ id: charge.id }).first();
    expect(row).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect(row.hold_accepted_at).not.toBeNull();
    expect(row.hold_released_at).not.toBeNull();
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.hold', 'checkout.failed', 'checkout.release_hold']);
    // A later failing move of the same charge could not release it again either.
    expect((await holds.resolveHold({ chargeId: charge.id, accepted: false, answered: false })).status).toBe('failed');
    expect((await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.release_hold')).toHaveLength(1);
  });
});

describe('refunds are all-or-nothing (points 5 and 7)', () => {
  async function succeededCardDeposit(shop: Shop) {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge.status).toBe('succeeded');
    return res.body.charge.id as string;
  }
  const refund = (shop: Shop, chargeId: string, body?: unknown) => request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key, body });

  it('refuses a refund body (refunds are full), public and admin, and refunds nothing', async () => {
    const shop = await openShop(service, {});
    const chargeId = await succeededCardDeposit(shop);
    const partial = await refund(shop, chargeId, { amount_cents: 100 });
    expect(partial.status).toBe(422);
    expect(partial.body).toEqual({ error: 'Refunds take no body.', hint: expect.stringMatching(/full charge amount/), request_id: expect.any(String) });
    expect((await admin('POST', `/admin/v1/charges/${chargeId}/refund`, { reason: 'x' })).status).toBe(422);
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(0);
    expect((await refund(shop, chargeId, {})).body.status).toBe('refunded');
  });

  it('a refund racing a returned move: exactly one wins, and a refunded charge always has its refund row', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.refunded'] });
    for (let round = 0; round < 6; round += 1) {
      const chargeId = await succeededCardDeposit(shop);
      const delay = (round % 3) * 40;
      const [refunded, returned] = await Promise.all([
        refund(shop, chargeId),
        new Promise((r) => setTimeout(r, delay)).then(() => transition(chargeId, { to: 'returned' })),
      ]);
      const charge = await service.deps.db('charges').where({ id: chargeId }).first();
      const rows = await service.deps.db('refunds').where({ charge_id: chargeId });
      if (charge.status === 'refunded') {
        expect(refunded.status).toBe(200);
        expect(refunded.body.status).toBe('refunded');
        expect(returned.status).toBe(422);
        expect(rows).toHaveLength(1);
        expect(rows[0].status).toBe('succeeded');
      } else {
        expect(charge.status).toBe('returned');
        expect(returned.status).toBe(200);
        expect(refunded.status).toBe(422);
        expect(rows).toHaveLength(0);
      }
    }
  });

  it('the simulator refunds only a refundable deposit, and records the refund like any other', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.refunded'] });
    const chargeId = await succeededCardDeposit(shop);
    const res = await transition(chargeId, { to: 'refunded' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('refunded');
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toEqual([expect.objectContaining({ source: 'processor', status: 'succeeded' })]);

    const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1200 });
    const paid = await attempt(service, withdrawal, { payment_method: CARD() });
    await waitFor(async () => (await getCharge(service, shop, paid.body.charge.id)).body.status === 'succeeded');
    const debit = await transition(paid.body.charge.id, { to: 'refunded' });
    expect(debit.status).toBe(422);
    expect(debit.body.error).toMatch(/credit/);
    expect(debit.body.hint).toContain('returned');
    expect((await recordedEvents(service, withdrawal.id)).map((e) => e.type)).not.toContain('checkout.refunded');
  });
});

describe('the simulator cannot move a charge in ways its workflow does not expect (point 7)', () => {
  it('a withdrawal charge is never paid or made pending before its hold was accepted; a deposit is never held', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    let moves: Array<{ status: number; body: any }> = [];
    // While the hold is unanswered, the processor tries to move the charge on its own.
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold') {
        const id = r.body.data.charge.id;
        moves = [await transition(id, { to: 'pending' }), await transition(id, { to: 'succeeded' }), await transition(id, { to: 'held' })];
      }
      return { status: 200 };
    };
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1800 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    await waitFor(() => moves.length === 3);
    expect(moves.map((m) => m.status)).toEqual([422, 422, 422]);
    expect(moves[0]!.body.hint).toMatch(/hold/);
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'succeeded');

    receiver.responder = () => ({ status: 200 });
    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1800 });
    const bank = await attempt(service, deposit, { payment_method: BANK() });
    expect(bank.body.charge.status).toBe('pending');
    expect((await transition(bank.body.charge.id, { to: 'held' })).status).toBe(422);
  });

  it('a held payout moved to pending by the processor is followed to its end; the checkout takes no attempt meanwhile', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, sandbox_hold_seconds: 2, sandbox_settlement_seconds: 1 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2600 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge.status).toBe('held');
    expect((await transition(res.body.charge.id, { to: 'pending' })).status).toBe(200);
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(422);
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'succeeded', 20_000);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
    expect((await walletView(service, checkout)).body.state).toBe('completed');
  });
});

describe('a failed attempt frees the checkout for the next one (audit)', () => {
  // Audit regression: a held withdrawal the processor (the simulator) failed during the hold time
  // kept its checkout refusing attempts ("another attempt is still in progress") until that time was
  // up, up to sandbox_hold_seconds, although the charge had failed and the customer may retry.
  // Audit regression: the charge's failure commits a moment before the checkout's workflow reads it
  // and ends the attempt; an attempt sent in between was admitted (no charge in progress) and then
  // refused by the workflow as "another attempt is still in progress" (5 of 5 sent right after the
  // simulator's answer).
  it('an attempt sent as soon as a pending charge failed is taken', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, sandbox_settlement_seconds: 60 });
    for (let round = 0; round < 3; round++) {
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2200 });
      const first = await attempt(service, checkout, { payment_method: BANK() });
      expect(first.body.charge.status).toBe('pending');
      expect((await transition(first.body.charge.id, { to: 'failed' })).status).toBe(200);
      const next = await attempt(service, checkout, { payment_method: CARD() });
      expect(`${next.status} ${next.body.charge?.status ?? next.body.error}`).toBe('201 succeeded');
    }
  });

  it('a held charge failed during the hold time: the checkout takes the next attempt long before the hold time is up', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, sandbox_hold_seconds: 60 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2100 });
    const first = await attempt(service, checkout, { payment_method: CARD() });
    expect(first.body.charge.status).toBe('held');
    expect((await transition(first.body.charge.id, { to: 'failed' })).status).toBe(200);
    const next = await waitFor(async () => {
      const res = await attempt(service, checkout, { payment_method: CARD() });
      return res.status === 201 ? res : undefined;
    }, 10_000, 'the checkout to take the next attempt');
    expect(next.body.charge.status).toBe('held');
    expect((await chargesOf(checkout.id)).map((c) => c.status)).toEqual(['failed', 'held']);
  });
});

describe('expiry pauses while a review is pending (point 7)', () => {
  it('shows no deadline in review, never expires before the decision, and resumes with the time that was left', async () => {
    const shop = await reviewShop({ checkout_expiry_seconds: 4, enabled_events: ['checkout.expired', 'checkout.review.created', 'checkout.review.approved'] });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 5000)); // past the original deadline
    const view = (await walletView(service, checkout)).body;
    expect(view).toMatchObject({ state: 'in_review', expires_at: null });
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).not.toContain('checkout.expired');
    const created = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.review.created')!;
    expect(created.body.data.expires_at).toBeNull();

    const decidedAt = Date.now();
    expect((await admin('POST', `/admin/v1/reviews/${res.body.review.id}/approve`)).status).toBe(200);
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.review.approved'));
    const approved = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.review.approved')!;
    const resumedAt = Date.parse(approved.body.data.expires_at);
    expect(resumedAt).toBeGreaterThan(decidedAt + 2000);
    expect(resumedAt).toBeLessThan(decidedAt + 6000);
    // The approved payout fails (declined card), and the checkout then expires on its resumed deadline.
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.expired'), 20_000, 'checkout.expired');
    const expired = (await recordedEvents(service, checkout.id)).find((e) => e.type === 'checkout.expired')!;
    expect(Date.parse(JSON.parse(expired.body).data.expired_at)).toBe(resumedAt);
  });
});

describe('an approval always gets its charge (audit)', () => {
  // Audit regression: expiry resumed on approval with exactly the time left when the review
  // started, which is a few milliseconds for a review opened just before the deadline; the approved
  // charge's insert (checked against that deadline by the database's clock) was then refused, so the
  // approval answered 200 and no charge or hold ever followed, and the checkout expired.
  it('a review started with milliseconds left: its approval creates the charge and places the hold', async () => {
    const shop = await reviewShop();
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(202);
    // As if the review had started 5 ms before the deadline.
    await service.deps.db('checkouts').where({ id: checkout.id }).update({ expiry_remaining_ms: 5 });
    expect((await admin('POST', `/admin/v1/reviews/${res.body.review.id}/approve`)).status).toBe(200);
    const [charge] = await waitFor(async () => {
      const rows = await chargesOf(checkout.id);
      return rows.length === 1 && !['created', 'held', 'pending'].includes(rows[0].status) && rows;
    }, 10_000, 'the approved charge');
    expect(charge.status).toBe('succeeded');
    expect((await service.deps.db('reviews').where({ id: res.body.review.id }).first()).charge_id).toBe(charge.id);
  });
});

describe('an approval deadline by the database clock (audit)', () => {
  // Audit regression: the approval set the new deadline from the worker's clock, while the approved
  // charge's insert checks it against the database's; a worker clock a few seconds behind gave a
  // review started near the deadline an approval whose charge could never be created.
  it('sets the resumed deadline by the database clock, whatever the worker clock says', async () => {
    const { createReviewActivities } = await import('../../../activities/reviews');
    const activities = createReviewActivities(service.deps);
    const checkout = await withdrawalInReview();
    await service.deps.db('checkouts').where({ id: checkout.id }).update({ expiry_remaining_ms: 5 });
    const realNow = Date.now.bind(Date);
    const behind = jest.spyOn(Date, 'now').mockImplementation(() => realNow() - 10_000);
    try {
      await activities.recordReviewDecision({ checkoutId: checkout.id, decision: 'approved' });
    } finally {
      behind.mockRestore();
    }
    const { rows } = await service.deps.db.raw("SELECT expires_at > now() + interval '2 seconds' AS ahead FROM checkouts WHERE id = ?", [checkout.id]);
    expect(rows[0].ahead).toBe(true);
  });
});

describe('a retried review decision (audit)', () => {
  // Audit regression: when the decision committed but the activity's answer was lost, its retry
  // answered no deadline, so the workflow kept the one from before the review.
  it('answers the deadline the approval resumed when the activity runs again', async () => {
    const { createReviewActivities } = await import('../../../activities/reviews');
    const activities = createReviewActivities(service.deps);
    const checkout = await withdrawalInReview({ checkout_expiry_seconds: 600 });
    // The activity itself, as the workflow would run it once the reviewer approved (the workflow still waits).
    const first = await activities.recordReviewDecision({ checkoutId: checkout.id, decision: 'approved' });
    expect(first).toMatchObject({ status: 'approved', checkoutExpiresAt: expect.any(String) });
    const again = await activities.recordReviewDecision({ checkoutId: checkout.id, decision: 'approved' });
    expect(again).toEqual(first);
  });

  it("writes a merchant person's audit entry with the decision, once however often the activity runs", async () => {
    const { createReviewActivities } = await import('../../../activities/reviews');
    const activities = createReviewActivities(service.deps);
    const checkout = await withdrawalInReview({ checkout_expiry_seconds: 600 });
    const audit = { actor: { kind: 'user' as const, id: `usr_${checkout.id}` } };
    const first = await activities.recordReviewDecision({ checkoutId: checkout.id, decision: 'declined', audit });
    await activities.recordReviewDecision({ checkoutId: checkout.id, decision: 'declined', audit });
    const entries = await service.deps.db('audit_log').where({ target: first.id });
    expect(entries.map((e: { actor: string; action: string }) => [e.actor, e.action])).toEqual([[audit.actor.id, 'review.declined']]);
  });
});

describe('an approval whose worker comes back late (audit)', () => {
  // Audit regression: the approval reopened the checkout with at least 3 s left and the approved
  // charge was created by the workflow's next activity. A worker that stopped between the two (or
  // one busy for longer than that) came back past the deadline: the sweep had expired the checkout
  // (no charge held it) or the charge's insert refused it, so an approved withdrawal was never paid,
  // after checkout.review.approved had told the merchant it would be.
  it('creates the approved charge in the approval commit, so neither the sweep nor a late insert loses it', async () => {
    const { createReviewActivities } = await import('../../../activities/reviews');
    const { createAttemptActivities } = await import('../../../activities/attempts');
    const { sweepOverdueCheckouts } = await import('../../../src/checkouts/expiry');
    const checkout = await withdrawalInReview({ checkout_expiry_seconds: 600 });
    // The activity itself, as the workflow runs it once the reviewer approved (the workflow still waits).
    await createReviewActivities(service.deps).recordReviewDecision({ checkoutId: checkout.id, decision: 'approved' });
    // The worker is away until past the resumed deadline, and a sweep runs meanwhile.
    await service.deps.db('checkouts').where({ id: checkout.id }).update({ expires_at: new Date(Date.now() - 60_000) });
    await sweepOverdueCheckouts(service.deps, 0);
    expect((await service.deps.db('checkouts').where({ id: checkout.id }).first()).state).toBe('open');
    const review = await service.deps.db('reviews').where({ checkout_id: checkout.id }).first();
    const charges = await service.deps.db('charges').where({ checkout_id: checkout.id });
    expect(charges.map((c) => [c.status, c.amount_cents, c.payment_method_id, c.attempt_key])).toEqual([['created', 900, review.payment_method_id, review.attempt_key]]);
    expect(review.charge_id).toBe(charges[0].id);
    // The workflow's next step, once its worker is back, takes that charge on.
    const made = await createAttemptActivities(service.deps).createCharge({ checkoutId: checkout.id, paymentMethodId: review.payment_method_id, amountCents: 900, attemptKey: review.attempt_key, reviewId: review.id });
    expect(made).toMatchObject({ chargeId: charges[0].id, status: 'created' });
  });
});

describe('a review starts only before the deadline (audit)', () => {
  // Audit regression: the review's compare-and-set checked only state = 'open', so an attempt whose
  // workflow task ran just after the deadline (before the expiry) opened a review with no time
  // left; the approval then could never create its charge.
  it('refuses to open a review on a checkout past its deadline by the database clock, and keeps nothing', async () => {
    const { createReviewActivities } = await import('../../../activities/reviews');
    const activities = createReviewActivities(service.deps);
    const shop = await reviewShop();
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    const [pm] = await service.deps.db('payment_methods').insert({
      id: `pm_${checkout.id}`, merchant_id: shop.merchant.id, customer_id: shop.customerId, payment_type: 'card',
      details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } }), fingerprint: 'fp', processor_token: 'sbx_approve_x',
    }).returning('*');
    const review = { checkoutId: checkout.id, attemptKey: `late-${checkout.id}`, paymentMethodId: pm.id, amountCents: 900 };
    await service.deps.db('checkouts').where({ id: checkout.id }).update({ expires_at: service.deps.db.raw("now() - interval '100 milliseconds'") });
    await expect(activities.createReview(review)).rejects.toMatchObject({ type: 'CHECKOUT_CLOSED' });
    expect(await service.deps.db('reviews').where({ checkout_id: checkout.id })).toHaveLength(0);
    // Not paused for review. Open, or expired already: the run's expiry sweeps (every worker's, the
    // test harness's grace 0) may take an overdue checkout at any moment.
    expect(['open', 'expired']).toContain((await service.deps.db('checkouts').where({ id: checkout.id }).first()).state);

    // Before the deadline it opens, keeping the time that was left: a checkout never overdue, which
    // no sweep can have expired in between (the first one could, on the cluster's two workers).
    const timely = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    await service.deps.db('checkouts').where({ id: timely.id }).update({ expires_at: service.deps.db.raw("now() + interval '60 seconds'") });
    await activities.createReview({ ...review, checkoutId: timely.id, attemptKey: `timely-${timely.id}` });
    const paused = await service.deps.db('checkouts').where({ id: timely.id }).first();
    expect(paused.state).toBe('in_review');
    expect(paused.expiry_remaining_ms).toBeGreaterThan(55_000);
    expect(paused.expiry_remaining_ms).toBeLessThanOrEqual(60_000);
  });
});

describe('failures surface with their reason (point 6)', () => {
  it('answers a date of birth in year 0000 (and other impossible dates) with 422', async () => {
    const shop = await openShop(service, {});
    for (const dob of ['0000-01-01', '1800-05-05', '2999-01-01']) {
      const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: { email: `dob-${dob}-${Date.now()}@example.com`, first_name: 'A', last_name: 'B', date_of_birth: dob } });
      expect(res.status).toBe(422);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const patch = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${shop.customerId}`, { token: shop.merchant.api_key, body: { date_of_birth: '0000-01-01' } });
    expect(patch.status).toBe(422);
  });
});

describe('a retried attempt keeps the decisions its charge was made under (audit)', () => {
  // Audit regression: beginAttempt, run again after its charge was made (a worker that died, a
  // processor or database error after the insert), ran the gates and the review rule again. A gate
  // or review setting changed between the two tries answered "blocked" or "needs review" with no
  // charge, although the attempt's charge existed: the workflow then blocked the checkout (or
  // opened a review) and left that charge in progress for ever, taken at the processor with no event.
  const retry = async (shop: Shop, checkout: CreatedCheckout, charge: { id: string }) => {
    const { createAttemptActivities } = await import('../../../activities/attempts');
    const row = await service.deps.db('charges').where({ id: charge.id }).first();
    return createAttemptActivities(service.deps).beginAttempt({
      checkoutId: checkout.id, merchantId: shop.merchant.id, customerId: shop.customerId,
      paymentMethodId: row.payment_method_id, amountCents: row.amount_cents, attemptKey: row.attempt_key,
    });
  };

  it('a gate turned on after the charge was made does not block its retry', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, sandbox_settlement_seconds: 60 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 700 });
    const res = await attempt(service, checkout, { payment_method: BANK() });
    expect(res.status).toBe(201);
    expect(res.body.charge.status).toBe('pending');
    // The merchant now requires a geo check the customer never made.
    expect((await admin('PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { geo_required_for: ['deposit'] })).status).toBe(200);
    const again = await retry(shop, checkout, res.body.charge);
    expect(again.plan.block).toBeNull();
    expect(again.charge).toMatchObject({ chargeId: res.body.charge.id, status: 'pending' });
  });

  it('a review turned on after a withdrawal charge was made does not send its retry to review', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    expect((await admin('PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { review: { enabled: true, min_amount_cents: 100 } })).status).toBe(200);
    const again = await retry(shop, checkout, res.body.charge);
    expect(again.plan.needsReview).toBe(false);
    expect(again.charge?.chargeId).toBe(res.body.charge.id);
  });
});
