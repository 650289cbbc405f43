import { KYC_NAME_MISMATCH, restrictCustomer } from '../../../src/customers/restrictions';
import { insertChargeWhileLive } from '../../../src/storage/charges';
import { findMerchant } from '../../../src/storage/merchants';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, recordedEvents, waitFor, walletView, type Shop } from '../../support/fixtures';
import { DAY, HOUR, plus, subscriptionHelpers } from '../../support/subscriptions';
import { subscriptionViolations } from '../../support/subscription-invariants';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const { admin, setClock, subscribe, read, advance, until } = subscriptionHelpers(() => service);

/** A verified KYC record; the shop's customer is created with other names, so by default it does not match. */
const kyc = (customerId: string, over: Record<string, unknown> = {}) => ({
  customer_id: customerId, first_name: 'Augusta', last_name: 'King', date_of_birth: '1990-01-01', address_line_1: '1 Main St',
  city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true, ...over,
});
const upsertKyc = (shop: Shop, body: Record<string, unknown>) => request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: shop.merchant.api_key, body });
const charges = (checkoutId: string) => service.deps.db('charges').where({ checkout_id: checkoutId });
const checkoutRow = (checkoutId: string) => service.deps.db('checkouts').where({ id: checkoutId }).first();
/** A real (non-test) card number, which production accepts. */
const LIVE_CARD = () => CARD('4111111111111111');

describe('a restricted customer is charged by no entry point', () => {
  it('production: a KYC mismatch on a deposit restricts the customer; withdrawals below and above the review threshold are then blocked, no charge; lifting and fixing the name lets them through', async () => {
    const shop = await openShop(service, {
      webhook_url: receiver.url,
      kyc_required_for: ['deposit'],
      review: { enabled: true, min_amount_cents: 1000 },
      enabled_events: ['checkout.terminally_failed', 'customer.restricted'],
    }, 'production');
    receiver.responder = () => ({ status: 200 }); // every hold accepted
    expect((await upsertKyc(shop, kyc(shop.customerId))).status).toBeLessThan(300);

    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, deposit, { payment_method: LIVE_CARD() })).status).toBe(422);
    expect((await service.deps.db('customers').where({ id: shop.customerId }).first()).restriction_reason).toBe(KYC_NAME_MISMATCH);

    // No KYC rule covers withdrawals here: the restriction alone must stop them, below and above the review threshold.
    for (const amount of [900, 1500]) {
      const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: amount });
      const res = await attempt(service, withdrawal, { payment_method: LIVE_CARD() });
      expect(res.status).toBe(422);
      expect(res.body.error).toContain('blocked');
      expect(await charges(withdrawal.id)).toHaveLength(0);
      expect(await service.deps.db('reviews').where({ checkout_id: withdrawal.id })).toHaveLength(0);
      expect(await checkoutRow(withdrawal.id)).toMatchObject({ state: 'blocked', blocked_reason: 'customer_restricted' });
      const [event] = await recordedEvents(service, withdrawal.id);
      expect(event).toMatchObject({ type: 'checkout.terminally_failed', enabled: true });
      expect(JSON.parse(event!.body).data).toMatchObject({ id: withdrawal.id, type: 'withdrawal', reason: 'customer_restricted' });
    }
    expect(await service.deps.db('charges').where({ customer_id: shop.customerId })).toHaveLength(0);

    // Lifted, and the profile fixed to the verified name: every entry point admits the customer again.
    expect((await admin('POST', `/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    const patched = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${shop.customerId}`, { token: shop.merchant.api_key, body: { first_name: 'Augusta', last_name: 'King' } });
    expect(patched.status).toBe(200);
    const again = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, again, { payment_method: LIVE_CARD() })).body.charge.status).toBe('succeeded');
    const small = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    const paid = await attempt(service, small, { payment_method: LIVE_CARD() });
    expect(paid.status).toBe(201);
    await waitFor(async () => (await charges(small.id))[0]?.status === 'succeeded', 20_000, 'the 900-cent payout');
    const large = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1500 });
    const reviewed = await attempt(service, large, { payment_method: LIVE_CARD() });
    expect(reviewed.status).toBe(202);
    expect((await admin('POST', `/reviews/${reviewed.body.review.id}/approve`)).status).toBe(200);
    await waitFor(async () => (await charges(large.id))[0]?.status === 'succeeded', 20_000, 'the approved payout');
  });

  it('a saved method: a restricted customer paying with it has the checkout blocked, no charge, deposit or withdrawal', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    receiver.responder = () => ({ status: 200 });
    const first = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const paid = await attempt(service, first, { payment_method: CARD(), save_payment_method: true });
    expect(paid.body.charge.status).toBe('succeeded');
    const saved = (await walletView(service, await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 }))).body.saved_payment_methods[0].id;
    await restrict(shop);
    for (const type of ['deposit', 'withdrawal']) {
      const checkout = await createCheckout(service, shop, { type, fixed_amount_cents: 700 });
      expect((await attempt(service, checkout, { payment_method: { saved_payment_method_id: saved } })).status).toBe(422);
      expect(await checkoutRow(checkout.id)).toMatchObject({ state: 'blocked', blocked_reason: 'customer_restricted' });
      expect(await charges(checkout.id)).toHaveLength(0);
    }
  });

  it('the charge INSERT itself refuses a customer restricted after the policy was evaluated', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const [pm] = await service.deps.db('payment_methods').insert({
      id: `pm_${checkout.id}`, merchant_id: shop.merchant.id, customer_id: shop.customerId, payment_type: 'card',
      details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } }), fingerprint: 'fp', processor_token: 'sbx_approve_x',
    }).returning('*');
    const charge = (attemptKey: string) => ({
      id: `ch_${attemptKey}`, merchant_id: shop.merchant.id, checkout_id: checkout.id, customer_id: shop.customerId, payment_method_id: pm.id,
      attempt_key: attemptKey, amount_cents: 1000, currency: 'USD', transaction_type: 'credit' as const, processor: 'sandbox_alpha',
    });
    await restrict(shop);
    expect(await insertChargeWhileLive(service.deps.db, charge(`${checkout.id}-a`), { slotHeld: false })).toBeUndefined();
    expect(await charges(checkout.id)).toHaveLength(0);
    expect((await admin('POST', `/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    expect(await insertChargeWhileLive(service.deps.db, charge(`${checkout.id}-b`), { slotHeld: false })).toMatchObject({ inserted: true, charge: { status: 'created', checkout_id: checkout.id } });
  });

  it('a customer restricted while a withdrawal waits in review: the approval is refused and no charge is made', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 1000 } });
    receiver.responder = () => ({ status: 200 });
    const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1500 });
    const reviewed = await attempt(service, withdrawal, { payment_method: CARD() });
    expect(reviewed.status).toBe(202);
    await restrict(shop);
    const refused = await admin('POST', `/reviews/${reviewed.body.review.id}/approve`);
    expect(refused.status).toBe(422);
    expect(refused.body.hint).toContain('restricted');
    expect(await charges(withdrawal.id)).toHaveLength(0);
  });

  it('a renewal of a restricted customer never reaches the processor: it fails with customer_restricted and is dunned; once lifted the retry is paid', async () => {
    const shop = await openShop(service, {
      webhook_url: receiver.url,
      enabled_events: ['checkout.failed', 'subscription.payment_failed'],
      subscription_retry_days: [1, 3],
    });
    await setClock(shop, '2027-05-10T09:00:00Z');
    const { id, checkout } = await subscribe(shop);
    const due = (await read(id)).current_period_end as string;
    await restrict(shop);

    await advance(id, { to: plus(due, HOUR) });
    const sub = await until(id, (s) => s.failed_attempts === 1, 'the refused renewal');
    expect(sub).toMatchObject({ status: 'past_due', next_charge_at: plus(due, DAY) });
    const [refused] = await service.deps.db('charges').where({ subscription_id: id, subscription_period: 1 });
    // Recorded failed without a processor call: no processor charge id, the reason in failure_code.
    expect(refused).toMatchObject({ status: 'failed', failure_code: 'customer_restricted', processor_charge_id: null });
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'subscription.payment_failed'), 20_000, 'subscription.payment_failed');
    const failed = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.failed'), 20_000, 'checkout.failed');
    expect(failed.body.data.charge).toMatchObject({ id: refused.id, status: 'failed', failure_code: 'customer_restricted' });

    expect((await admin('POST', `/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    await advance(id, { to: plus(due, DAY + HOUR) });
    const renewed = await until(id, (s) => s.status === 'active' && s.failed_attempts === 0, 'the paid retry');
    expect(renewed.charges.map((c: { period: number; status: string }) => [c.period, c.status])).toEqual([[0, 'succeeded'], [1, 'failed'], [1, 'succeeded']]);
    expect(await subscriptionViolations(service.deps.db, shop.merchant.id)).toEqual([]);
  }, 120_000);
});

describe('card velocity counts the card number, whatever the expiry', () => {
  const card = (exp_month: number, exp_year: number, number = '4000000000000002') => ({ type: 'credit_card', card: { number, exp_month, exp_year, cvc: '123' } });

  it('card_attempts_per_hour 2: the third attempt is 429, and so is the same number with any other expiry', async () => {
    const shop = await openShop(service, { velocity_limits: { enabled: true, card_attempts_per_hour: 2 } });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const statuses: number[] = [];
    for (const [month, year] of [[12, 2030], [12, 2030], [12, 2030], [11, 2030], [10, 2030], [9, 2031]] as const) {
      const res = await attempt(service, checkout, { payment_method: card(month, year) });
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses).toEqual([201, 201, 429, 429, 429, 429]);
    // Another card number is counted on its own.
    expect((await attempt(service, checkout, { payment_method: CARD('4000000000000077') })).status).toBe(201);
  });

  it('a saved card counts with the same number typed in', async () => {
    const shop = await openShop(service, { velocity_limits: { enabled: true, card_attempts_per_hour: 2 } });
    const first = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, first, { payment_method: card(12, 2030, '4242424242424242'), save_payment_method: true })).status).toBe(201);
    const second = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const saved = (await walletView(service, second)).body.saved_payment_methods[0].id;
    expect((await attempt(service, second, { payment_method: { saved_payment_method_id: saved } })).status).toBe(201);
    const third = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const typed = await attempt(service, third, { payment_method: card(1, 2031, '4242424242424242') });
    expect(typed.status).toBe(429);
    // The saved method itself is unchanged: one saved card, de-duplicated by number and expiry.
    expect(await service.deps.db('payment_methods').where({ customer_id: shop.customerId, saved: true })).toHaveLength(1);
  });

  it('customer_attempts_per_hour 2: a third attempt of the same customer with another card is 429; another customer is not counted', async () => {
    const shop = await openShop(service, { velocity_limits: { enabled: true, customer_attempts_per_hour: 2 } });
    const statuses: number[] = [];
    for (const number of ['4000000000000002', '4000000000000077', '4242424242424242']) {
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
      statuses.push((await attempt(service, checkout, { payment_method: CARD(number) })).status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    const other = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: { first_name: 'Other', last_name: 'Customer', email: `other-${Date.now()}@example.com` } });
    expect(other.status).toBe(201);
    const theirs = await createCheckout(service, { ...shop, customerId: other.body.id }, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, theirs, { payment_method: CARD('4242424242424242') })).status).toBe(201);
  });

  it('velocity_limits.customer_attempts_per_hour is a setting: null by default, validated, kept by a partial PATCH', async () => {
    const shop = await openShop(service);
    const settings = async () => (await admin('GET', `/merchants/${shop.merchant.id}`)).body.settings;
    const patch = (velocity_limits: Record<string, unknown>) => admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { velocity_limits });
    expect((await settings()).velocity_limits.customer_attempts_per_hour).toBeNull();
    const bad = await patch({ customer_attempts_per_hour: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: expect.any(String), hint: expect.any(String) });
    expect((await patch({ customer_attempts_per_hour: 5 })).status).toBe(200);
    expect((await settings()).velocity_limits).toMatchObject({ customer_attempts_per_hour: 5, card_attempts_per_hour: 10 });
    expect((await patch({ customer_attempts_per_hour: null })).status).toBe(200);
    expect((await settings()).velocity_limits.customer_attempts_per_hour).toBeNull();
  });
});

/** Restricts the shop's customer as the KYC gate does (the name match only runs in production, and test clocks only in sandbox). */
async function restrict(shop: Shop): Promise<void> {
  const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
  await service.deps.db.transaction((trx) => restrictCustomer(trx, merchant, { id: shop.customerId }, KYC_NAME_MISMATCH));
}
