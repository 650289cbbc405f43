import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import { sweepAsDue } from '../../support/outbox';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';
import { verifySignature } from '../../../src/webhooks/signature';
import { recordEvent } from '../../../src/events/record';
import { findMerchant } from '../../../src/storage/merchants';
import { deliverAfterCommit, settleFirstDeliveries } from '../../../src/events/first-delivery';
import { attemptDelivery } from '../../../src/events/deliver';
import { markDispatched } from '../../../src/storage/events';
import { createDeliveryActivities } from '../../../activities/delivery';
import { MockActivityEnvironment } from '@temporalio/testing';

let service: Service;
let receiver: WebhookReceiver;
// One-second first retry, so consecutive attempts fall in different seconds (fresh timestamps).
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { WEBHOOK_RETRY_INITIAL_MS: '1000' } } });

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, body });

async function succeededEvent(settings: Record<string, unknown> = {}) {
  const shop = await openShop(service, { webhook_url: receiver.url, ...settings });
  const checkout = await createCheckout(service, shop, {
    type: 'deposit',
    line_items: [{ name: 'Poster', price_cents: 1500, quantity: 2, sku: 'poster-1', url: 'https://img.example.com/p.png' }, { name: 'Shipping', price_cents: 500, quantity: 1, sku: 'shipping' }],
  });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  return { shop, checkout, charge: res.body.charge };
}

describe('signed delivery', () => {
  it('sends the envelope with keys event_id, data, type, signed byte for byte, under both headers', async () => {
    receiver.responder = () => ({ status: 200 });
    const { shop, checkout, charge } = await succeededEvent();
    const [delivery] = await waitFor(() => {
      const found = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.succeeded');
      return found.length > 0 && found;
    });
    expect(delivery!.rawBody.startsWith('{"event_id":"ev_')).toBe(true);
    expect(Object.keys(delivery!.body)).toEqual(['event_id', 'data', 'type']);
    const canonical = delivery!.headers['service-webhook-signature'] as string;
    expect(canonical).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(delivery!.headers['service_signature']).toBe(canonical);
    for (const header of [canonical, delivery!.headers['service_signature'] as string]) {
      expect(() => verifySignature({ rawBody: delivery!.rawBody, header, secret: shop.merchant.webhook_signing_secret })).not.toThrow();
    }
    expect(() => verifySignature({ rawBody: delivery!.rawBody + ' ', header: canonical, secret: shop.merchant.webhook_signing_secret })).toThrow();

    const data = delivery!.body.data;
    expect(data).toMatchObject({ id: checkout.id, type: 'deposit', subscription: null });
    expect(data.charge).toEqual({ id: charge.id, amount_cents: 3500, transaction_type: 'credit', status: 'succeeded', from_status: 'created', failure_code: null, failure_message: null });
    expect(data.line_items).toHaveLength(2);
    expect(Object.keys(data.line_items[0]).sort()).toEqual(['product_id', 'product_name', 'product_price_cents', 'product_url', 'quantity', 'sku', 'total_amount_cents']);
    expect(data.line_items[0]).toMatchObject({ product_name: 'Poster', product_price_cents: 1500, quantity: 2, total_amount_cents: 3000, sku: 'poster-1', product_url: 'https://img.example.com/p.png' });
  });

  it('carries data.subscription on subscription checkouts', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', line_items: [{ name: 'Plan', price_cents: 999, quantity: 1 }], subscription_data: { interval: 'month', interval_count: 3 } });
    await attempt(service, checkout, { payment_method: CARD() });
    const [delivery] = await waitFor(() => receiver.forCheckout(checkout.id).length > 0 && receiver.forCheckout(checkout.id));
    const subscription = await waitFor(() => service.deps.db('subscriptions').where({ checkout_id: checkout.id }).first());
    expect(delivery!.body.data.subscription).toMatchObject({ id: subscription.id, status: 'active', interval: 'month', interval_count: 3, amount_cents: 999 });
  });

  it('makes 5 attempts in all with one event_id and fresh signatures while the receiver keeps failing', async () => {
    receiver.responder = () => ({ status: 500 });
    const { checkout } = await succeededEvent();
    await waitFor(async () => {
      const [event] = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' });
      return event?.delivery_status === 'failed';
    }, 40_000, 'delivery to give up');
    const deliveries = receiver.forCheckout(checkout.id);
    expect(deliveries).toHaveLength(5);
    expect(new Set(deliveries.map((d) => d.body.event_id)).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.rawBody)).size).toBe(1);
    const signatures = deliveries.map((d) => d.headers['service-webhook-signature']);
    expect(new Set(signatures).size).toBe(5);
    const gaps = deliveries.slice(1).map((d, i) => d.receivedAt - deliveries[i]!.receivedAt);
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!); // backoff grows
    await new Promise((r) => setTimeout(r, 2000));
    expect(receiver.forCheckout(checkout.id)).toHaveLength(5); // never a sixth
  }, 60_000);

  // Audit regression: the sweeper gave such an event a fresh workflow of five attempts (six in all).
  it('still makes 5 in all when the first attempt was made but its retry workflow could not start (the sweeper starts it)', async () => {
    receiver.responder = () => ({ status: 500 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'sweeper' }, {});
    // The committing process makes the first attempt; Temporal then refuses its retry workflow.
    const unreachable = { workflow: { start: async () => Promise.reject(new Error('14 UNAVAILABLE: connection refused')) } };
    deliverAfterCommit({ ...service.deps, temporal: unreachable as never }, [event.id]);
    await settleFirstDeliveries();
    const mine = () => receiver.requests.filter((r) => r.body?.event_id === event.id);
    expect(mine()).toHaveLength(1);
    // Past the sweeper's grace period, a sweep dispatches it (run here: see sweepAsDue).
    await sweepAsDue(service, [event.id]);
    await waitFor(async () => (await service.deps.db('events').where({ id: event.id }).first()).delivery_status === 'failed', 90_000, 'delivery to give up'); // ~15 s of backoff, longer on a loaded CI machine
    const attempts = await service.deps.db('event_delivery_attempts').where({ event_id: event.id }).orderBy('id');
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mine()).toHaveLength(5);
  }, 120_000);

  // Audit regression: the sweeper took an event whose first attempt the merchant had accepted (the
  // 2xx is in the event log) but whose outcome the committing process died before writing, and
  // delivered it again, with a workflow of four more attempts.
  it('does not deliver again an event whose first attempt was accepted but whose outcome was never written', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'accepted-then-crash' }, {});
    // The committing process makes the first attempt, which the merchant accepts, and dies before recording the outcome.
    expect((await attemptDelivery(service.deps, event, merchant, 1))?.ok).toBe(true);
    const mine = () => receiver.requests.filter((r) => r.body?.event_id === event.id);
    expect(mine()).toHaveLength(1);
    await sweepAsDue(service, [event.id]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mine()).toHaveLength(1);
    expect(await service.deps.db('events').where({ id: event.id }).first()).toMatchObject({ delivery_status: 'delivered', dispatched_at: expect.any(Date) });
  });

  // Audit regression: a delivery activity whose attempt the merchant accepted, but whose worker died
  // before Temporal learnt it (or that outlived its time limit), was run again and sent the event again.
  it('does not send again when a retried delivery activity finds the attempt before it accepted', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'accepted-then-retried' }, {});
    await markDispatched(service.deps.db, [event.id]); // its delivery workflow runs the activity below
    const { deliverEvent } = createDeliveryActivities(service.deps);
    const scheduledTimestampMs = Date.now() - 1000;
    // The activity's first run: the merchant accepts and the attempt is recorded; then its worker dies.
    expect((await attemptDelivery(service.deps, event, merchant, 1))?.ok).toBe(true);
    // Temporal runs it again.
    const retry = new MockActivityEnvironment({ attempt: 2, scheduledTimestampMs });
    expect(await retry.run(deliverEvent, { eventId: event.id, recordOutcome: true })).toBe('delivered');
    expect(receiver.requests.filter((r) => r.body?.event_id === event.id)).toHaveLength(1);
    expect((await service.deps.db('events').where({ id: event.id }).first()).delivery_status).toBe('delivered');
    // A first run is never held back: a resend delivers again.
    const resend = new MockActivityEnvironment({ attempt: 1, scheduledTimestampMs: Date.now() });
    expect(await resend.run(deliverEvent, { eventId: event.id, recordOutcome: true })).toBe('delivered');
    expect(receiver.requests.filter((r) => r.body?.event_id === event.id)).toHaveLength(2);
  });

  // Audit regression: an answer holding a NUL character (a UTF-16 body, binary) could not be written
  // to the event log, so a 2xx was lost: the event was delivered again and again, and a hold so
  // accepted failed the charge.
  it('records a 2xx whose answer holds NUL characters: the event is delivered once, and such a hold is accepted', async () => {
    receiver.responder = () => ({ status: 200, body: Buffer.from('ok', 'utf16le') });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 700 });
    await attempt(service, deposit, { payment_method: CARD() });
    const [event] = await waitFor(async () => {
      const rows = await service.deps.db('events').where({ checkout_id: deposit.id, type: 'checkout.succeeded' });
      return rows[0]?.delivery_status === 'delivered' && rows;
    }, 10_000, 'the delivery to be recorded');
    const attempts = await service.deps.db('event_delivery_attempts').where({ event_id: event.id });
    expect(attempts.map((a) => [a.attempt, a.http_status, a.response_excerpt])).toEqual([[1, 200, 'o\uFFFDk\uFFFD']]);
    expect(receiver.forCheckout(deposit.id)).toHaveLength(1);

    const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 700 });
    const res = await attempt(service, withdrawal, { payment_method: CARD() });
    expect(res.status).toBe(201);
    // Accepted, the hold lets the card payout go on to succeed (a refused one fails it while created).
    await waitFor(() => receiver.forCheckout(withdrawal.id).some((r) => r.body.type === 'checkout.succeeded'), 15_000, 'the payout');
    const charge = await service.deps.db('charges').where({ id: res.body.charge.id }).first();
    expect(charge).toMatchObject({ status: 'succeeded', failure_code: null });
    expect(receiver.forCheckout(withdrawal.id).map((r) => r.body.type)).toEqual(['checkout.hold', 'checkout.succeeded']);
  });

  it('stops retrying once the receiver recovers', async () => {
    let calls = 0;
    receiver.responder = () => ({ status: ++calls <= 2 ? 502 : 200 });
    const { checkout } = await succeededEvent();
    await waitFor(async () => {
      const [event] = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' });
      return event?.delivery_status === 'delivered';
    }, 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.forCheckout(checkout.id)).toHaveLength(3);
  });
});

describe('off-by-default events', () => {
  it('records but never delivers an event until the merchant enables it', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const first = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    await attempt(service, first, { payment_method: CARD('4000000000000002') });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.forCheckout(first.id)).toHaveLength(0);
    const [recorded] = await service.deps.db('events').where({ checkout_id: first.id });
    expect(recorded).toMatchObject({ type: 'checkout.failed', enabled: false, delivery_status: 'not_enabled' });

    const patched = await request(service.baseUrl, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { token: service.adminToken, body: { enabled_events: ['checkout.failed'] } });
    expect(patched.status).toBe(200);
    const second = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    await attempt(service, second, { payment_method: CARD('4000000000000002') });
    await waitFor(() => receiver.forCheckout(second.id).some((r) => r.body.type === 'checkout.failed'));
    expect(receiver.forCheckout(first.id)).toHaveLength(0);
  });

  it('records events but delivers nothing when the merchant has no webhook_url', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    await attempt(service, checkout, { payment_method: CARD() });
    await waitFor(async () => (await service.deps.db('events').where({ checkout_id: checkout.id }).first())?.delivery_status === 'no_webhook_url');
    expect(await service.deps.db('event_delivery_attempts').join('events', 'events.id', 'event_delivery_attempts.event_id').where('events.checkout_id', checkout.id)).toHaveLength(0);
  });

  it('writes an event of a merchant without webhook_url already settled, so no later write or sweep takes it', async () => {
    const shop = await openShop(service);
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await service.deps.db.transaction((trx) => recordEvent(trx, merchant, 'checkout.succeeded', {}, {}));
    expect(event).toMatchObject({ enabled: true, delivery_status: 'no_webhook_url', dispatched_at: expect.any(Date) });
    const withUrl = { ...merchant, settings: { ...merchant.settings, webhook_url: receiver.url } };
    const pending = await service.deps.db.transaction((trx) => recordEvent(trx, withUrl, 'checkout.succeeded', {}, {}));
    expect(pending).toMatchObject({ enabled: true, delivery_status: 'pending', dispatched_at: null });
    await service.deps.db('events').whereIn('id', [event.id, pending.id]).delete();
  });
});

describe('event log', () => {
  it('lists events newest first with every delivery attempt, and resends with the same event_id', async () => {
    let calls = 0;
    receiver.responder = () => ({ status: ++calls === 1 ? 500 : 200 });
    const { shop, checkout } = await succeededEvent();
    await waitFor(async () => (await service.deps.db('events').where({ checkout_id: checkout.id }).first())?.delivery_status === 'delivered', 20_000);

    const log = await admin('GET', `/events?merchant_id=${shop.merchant.id}&type=checkout.succeeded`);
    expect(log.status).toBe(200);
    const [event] = log.body.results;
    expect(event).toMatchObject({ type: 'checkout.succeeded', merchant_id: shop.merchant.id, checkout_id: checkout.id, delivery_status: 'delivered' });
    expect(event.payload.event_id).toBe(event.id);
    expect(event.attempts.map((a: { attempt: number; http_status: number }) => [a.attempt, a.http_status])).toEqual([[1, 500], [2, 200]]);
    expect(event.attempts[0]).toEqual(expect.objectContaining({ started_at: expect.any(String), duration_ms: expect.any(Number), error: 'HTTP 500' }));

    const before = receiver.forCheckout(checkout.id).length;
    const resent = await admin('POST', `/events/${event.id}/resend`);
    expect(resent.status).toBe(202);
    await waitFor(() => receiver.forCheckout(checkout.id).length === before + 1);
    const again = receiver.forCheckout(checkout.id).at(-1)!;
    expect(again.body.event_id).toBe(event.id);
    expect(again.rawBody).toBe(receiver.forCheckout(checkout.id)[0]!.rawBody);

    expect((await admin('POST', '/events/ev_missing/resend')).status).toBe(404);
    // With no webhook_url there is nowhere to resend to: 422, nothing sent (it answered 202 before; found by an audit).
    await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { webhook_url: null });
    const nowhere = await admin('POST', `/events/${event.id}/resend`);
    expect(nowhere.status).toBe(422);
    expect(nowhere.body).toMatchObject({ error: 'The merchant has no webhook_url.', hint: expect.stringContaining('webhook_url') });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.forCheckout(checkout.id)).toHaveLength(before + 1);
    await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { webhook_url: receiver.url });
    const both = await admin('GET', `/events?merchant_id=${shop.merchant.id}`);
    expect(both.body.results.length).toBeGreaterThanOrEqual(1);
    expect((await admin('GET', '/events?limit=0')).status).toBe(422);
  });
});
