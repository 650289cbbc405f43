import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, getCharge, openShop, waitFor, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, path, { token: service.adminToken, body });
const NYC = { latitude: 40.7128, longitude: -74.006 };
const KYC = (customerId: string, over: Record<string, unknown> = {}) => ({
  customer_id: customerId, first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-01-01', address_line_1: '1 Main St',
  city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true, ...over,
});

async function paid(shop: Shop, amount = 2500) {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
  return { checkout, chargeId };
}

describe('admin data routes', () => {
  it("links a checkout nobody tried to its expiry workflow, and a tried one to its own; says when Temporal has none", async () => {
    const shop = await openShop(service, { checkout_expiry_seconds: 600 });
    const untried = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1500 });
    const expiryUrl = `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(`${untried.id}:expiry`)}`;
    for (const path of [`/admin/v1/checkouts/${untried.id}`, `/admin/v1/checkouts/${untried.id}/timeline`]) {
      const res = await admin('GET', path);
      expect([path, res.body.workflow, res.body.workflow_url]).toEqual([path, { id: `${untried.id}:expiry`, kind: 'expiry', status: 'running', url: expiryUrl }, expiryUrl]);
    }

    const { checkout } = await paid(shop);
    const own = await admin('GET', `/admin/v1/checkouts/${checkout.id}/timeline`);
    expect(own.body.workflow).toMatchObject({ id: checkout.id, kind: 'checkout', url: `http://localhost:8233/namespaces/default/workflows/${checkout.id}` });
    expect(['running', 'completed']).toContain(own.body.workflow.status);

    // A checkout whose workflows Temporal no longer keeps (or never had): no link, and the answer says so.
    await service.deps.db('checkouts').where({ id: untried.id }).update({ id: `${untried.id}x` });
    const none = await admin('GET', `/admin/v1/checkouts/${untried.id}x`);
    expect([none.status, none.body.workflow, none.body.workflow_url]).toEqual([200, null, null]);
  });

  it('GET /admin/v1/checkouts/{id}/timeline orders creation, geo check, review with evidence and decider, hold answer, moves and webhook attempts', async () => {
    const shop = await openShop(service, {
      webhook_url: receiver.url,
      review: { enabled: true, min_amount_cents: 500 },
      enabled_events: ['checkout.review.created', 'checkout.review.approved'],
    });
    await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: shop.merchant.api_key, body: KYC(shop.customerId) });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1500 });
    const geo = await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, { body: NYC, headers: { 'x-client-secret': checkout.client_secret } });
    let succeededCalls = 0;
    receiver.responder = (r) => (r.body?.type === 'checkout.succeeded' && r.body.data.id === checkout.id && ++succeededCalls === 1 ? { status: 500 } : { status: 200 });
    const paused = await attempt(service, checkout, { payment_method: CARD() });
    expect(paused.status).toBe(202);

    const queue = await admin('GET', `/admin/v1/reviews?status=pending&merchant_id=${shop.merchant.id}`);
    const review = queue.body.results[0];
    expect(review).toMatchObject({ id: paused.body.review.id, customer: { id: shop.customerId, first_name: 'Ada' }, payment_method: { payment_type: 'card' } });
    expect(review.evidence).toMatchObject({ rule: { name: 'review', min_amount_cents: 500 }, amount_cents: 1500, kyc_record: { verified: true }, geo_check: { id: geo.body.geo_check.id, passed: true } });
    const approved = await admin('POST', `/admin/v1/reviews/${review.id}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved', decided_by: 'admin API' });
    await waitFor(() => succeededCalls >= 2, 15_000, 'the retried checkout.succeeded');

    const timeline = await waitFor(async () => {
      const res = await admin('GET', `/admin/v1/checkouts/${checkout.id}/timeline`);
      return res.body.entries.filter((e: { kind: string }) => e.kind === 'webhook.attempt').length >= 4 ? res : undefined;
    });
    expect(timeline.body.workflow_url).toBe(`http://localhost:8233/namespaces/default/workflows/${checkout.id}`);
    const entries = timeline.body.entries as Array<{ at: string; kind: string; summary: string; details: any }>;
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort());
    const kinds = entries.map((e) => e.kind);
    expect(kinds[0]).toBe('checkout.created');
    for (const kind of ['geo_check', 'review.created', 'review.decided', 'charge.created', 'hold', 'charge.status', 'event', 'webhook.attempt']) expect(kinds).toContain(kind);
    expect(kinds.indexOf('review.created')).toBeLessThan(kinds.indexOf('review.decided'));
    expect(kinds.indexOf('review.decided')).toBeLessThan(kinds.indexOf('hold'));
    const hold = entries.find((e) => e.kind === 'hold')!;
    expect(hold.details).toMatchObject({ accepted: true, http_status: 200, response_excerpt: 'ok' });
    expect(hold.details.duration_ms).toEqual(expect.any(Number));
    expect(hold.summary).toMatch(/answered 200 in \d+ ms, accepted/);
    expect(entries.find((e) => e.kind === 'review.decided')!.summary).toBe('Review approved by admin API');
    const succeededAttempts = entries.filter((e) => e.kind === 'webhook.attempt' && e.details.type === 'checkout.succeeded');
    expect(succeededAttempts.map((e) => e.details.http_status)).toEqual([500, 200]);
    const moves = entries.filter((e) => e.kind === 'charge.status').map((e) => `${e.details.from}>${e.details.to}`);
    expect(moves).toEqual(['created>held', 'held>succeeded']);

    const detail = await admin('GET', `/admin/v1/checkouts/${checkout.id}`);
    expect(detail.body).toMatchObject({ id: checkout.id, merchant_id: shop.merchant.id, state: 'completed', review: { status: 'approved' } });
    expect((await admin('GET', '/admin/v1/checkouts/chk_missing/timeline')).status).toBe(404);
  }, 120_000);

  it('searches checkouts and charges by id, customer, merchant and email fragment', async () => {
    const shop = await openShop(service);
    const { checkout, chargeId } = await paid(shop);
    const email = (await service.deps.db('customers').where({ id: shop.customerId }).first()).email as string;
    for (const q of [checkout.id, shop.customerId, shop.merchant.id, email.slice(0, 14).toUpperCase(), chargeId]) {
      const found = await admin('GET', `/admin/v1/checkouts?q=${encodeURIComponent(q)}`);
      expect(found.status).toBe(200);
      expect(found.body.results.map((c: { id: string }) => c.id)).toContain(checkout.id);
      const charges = await admin('GET', `/admin/v1/charges?q=${encodeURIComponent(q)}`);
      expect(charges.body.results.map((c: { id: string }) => c.id)).toContain(chargeId);
    }
    expect((await admin('GET', `/admin/v1/checkouts?merchant_id=${shop.merchant.id}&customer_id=cus_other`)).body.results).toEqual([]);
    const merchants = await admin('GET', '/admin/v1/merchants');
    expect(merchants.body.results.map((m: { id: string }) => m.id)).toContain(shop.merchant.id);
  });

  it('POST /admin/v1/events/replay counts on a dry run, then redelivers only failed events once the receiver recovers', async () => {
    const down = await new WebhookReceiver().start();
    down.responder = () => ({ status: 503 });
    try {
      const shop = await openShop(service, { webhook_url: down.url });
      const failing = await paid(shop);
      await waitFor(async () => (await service.deps.db('events').where({ checkout_id: failing.checkout.id, type: 'checkout.succeeded' }).first()).delivery_status === 'failed', 20_000, 'delivery to fail');
      const failedEvent = await service.deps.db('events').where({ checkout_id: failing.checkout.id, type: 'checkout.succeeded' }).first();
      down.responder = () => ({ status: 200 });
      const fine = await paid(shop);
      await waitFor(() => down.forCheckout(fine.checkout.id).some((r) => r.body.type === 'checkout.succeeded'));

      const filter = { merchant_id: shop.merchant.id, failed_only: true, type: 'checkout.succeeded' };
      const before = down.requests.length;
      const dry = await admin('POST', '/admin/v1/events/replay', { ...filter, dry_run: true });
      expect(dry.status).toBe(200);
      expect(dry.body).toEqual({ dry_run: true, count: 1, event_ids: [failedEvent.id] });
      expect((await admin('POST', '/admin/v1/events/replay', { ...filter, from: new Date(Date.now() + 60_000).toISOString(), dry_run: true })).body.count).toBe(0);

      const replay = await admin('POST', '/admin/v1/events/replay', filter);
      expect(replay.status).toBe(202);
      expect(replay.body.count).toBe(1);
      // The replay's entry in the merchant's audit log, the admin token as its actor, committed with the new series.
      const entries = await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id, action: 'event.resent', target: failedEvent.id });
      expect(entries.map((e: { actor: string; details: unknown }) => [e.actor, e.details])).toEqual([['admin', { series: 2, replay: true }]]);
      const redelivered = await waitFor(() => down.requests.slice(before).find((r) => r.body?.event_id === failedEvent.id));
      expect(redelivered.rawBody).toBe(failedEvent.body);
      // The dry run delivered nothing: the only new request for the event is the replay's.
      expect(down.requests.slice(before).filter((r) => r.body?.event_id === failedEvent.id)).toHaveLength(1);
      await waitFor(async () => (await service.deps.db('events').where({ id: failedEvent.id }).first()).delivery_status === 'delivered');
      expect((await admin('POST', '/admin/v1/events/replay', { bogus: 1 })).status).toBe(422);
    } finally {
      await down.stop();
    }
  });

  // Audit regression: a replay started deliveries for a merchant with no webhook_url (a resend of
  // one such event is refused with 422), and each of them wrote no_webhook_url over the event's
  // delivery status: the log no longer said the event had been delivered.
  it('POST /admin/v1/events/replay leaves out events of a merchant with no webhook_url, and their log as it was', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const { checkout } = await paid(shop);
    const event = await waitFor(async () => {
      const row = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' }).first();
      return row?.delivery_status === 'delivered' && row;
    });
    expect((await admin('PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { webhook_url: null })).status).toBe(200);
    const dry = await admin('POST', '/admin/v1/events/replay', { merchant_id: shop.merchant.id, dry_run: true });
    expect(dry.body).toEqual({ dry_run: true, count: 0, event_ids: [] });
    const replay = await admin('POST', '/admin/v1/events/replay', { merchant_id: shop.merchant.id });
    expect(replay.status).toBe(202);
    expect(replay.body.count).toBe(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await service.deps.db('events').where({ id: event.id }).first()).delivery_status).toBe('delivered');
  });

  it('lists restricted customers with the reason and the evidence; the block records its evidence too', async () => {
    const shop = await openShop(service, { kyc_required_for: ['deposit'] }, 'production');
    const kyc = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: shop.merchant.api_key, body: KYC(shop.customerId, { first_name: 'Augusta', last_name: 'King' }) });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, checkout, { payment_method: CARD('4111111111111111') })).status).toBe(422);
    const list = await admin('GET', `/admin/v1/customers/restricted?merchant_id=${shop.merchant.id}`);
    expect(list.body.results).toHaveLength(1);
    expect(list.body.results[0]).toMatchObject({
      id: shop.customerId,
      restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME',
      restriction_evidence: { rule: { name: 'kyc_name_match' }, profile_name: { first_name: 'Ada', last_name: 'Lovelace' }, kyc_record: { id: kyc.body.id, first_name: 'Augusta' } },
    });
    const detail = await admin('GET', `/admin/v1/checkouts/${checkout.id}`);
    expect(detail.body.blocked_evidence).toMatchObject({ reason: 'kyc_name_mismatch', rule: { kyc_required_for: ['deposit'], environment: 'production' }, kyc_record: { id: kyc.body.id } });
    expect((await admin('POST', `/admin/v1/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    expect((await admin('GET', `/admin/v1/customers/restricted?merchant_id=${shop.merchant.id}`)).body.results).toEqual([]);
  });
});
