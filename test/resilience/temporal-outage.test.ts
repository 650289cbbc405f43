import { startService, type Service } from '../support/harness';
import { request, type JsonResponse } from '../support/http';
import { WebhookReceiver } from '../support/receiver';
import { TemporalDevServer } from '../support/temporal-server';
import { WorkerProcess } from '../support/worker-process';
import { attempt, CARD, createCheckout, openShop, pausedForReview, waitFor, type CreatedCheckout, type Shop } from '../support/fixtures';

/**
 * Bounded answers while Temporal or the worker is away: a request that cannot hand its work over
 * is answered 503 with Retry-After within 10 s, never held until they return; and work answered
 * 503 is never done later behind the caller's back. Only the same request sent again does it, once.
 */
const ANSWER_WITHIN_MS = 10_000;

let temporal: TemporalDevServer;
let service: Service;
let receiver: WebhookReceiver;
let worker: WorkerProcess;
let shop: Shop;

beforeAll(async () => {
  temporal = await TemporalDevServer.start();
  receiver = await new WebhookReceiver().start();
  service = await startService({ worker: false, replicas: 1, env: { TEMPORAL_ADDRESS: temporal.address } });
  worker = new WorkerProcess(service);
  await worker.start();
  shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 500 } });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await service?.stop();
  await receiver?.stop();
  await temporal?.stop();
});

/** Sends the request and answers it with how long it took. */
async function timed(send: () => Promise<JsonResponse>): Promise<{ res: JsonResponse; ms: number }> {
  const started = Date.now();
  const res = await send();
  return { res, ms: Date.now() - started };
}

function expectBounded503({ res, ms }: { res: JsonResponse; ms: number }): void {
  expect([res.status, ms < ANSWER_WITHIN_MS]).toEqual([503, true]);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.body).toEqual({ error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) });
}

const keyedAttempt = (checkout: CreatedCheckout, key: string) =>
  request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': checkout.client_secret, 'idempotency-key': key } });

const chargesOf = (checkoutId: string) => service.deps.db('charges').where({ checkout_id: checkoutId });

/** Long enough for a worker that came back to run every workflow task it was owed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 4_000));

/** Sends the request with the worker killed, expects a bounded 503, then brings the worker back and lets it run what it was owed. */
async function answered503WhileWorkerAway(send: () => Promise<JsonResponse>): Promise<void> {
  await worker.kill();
  try {
    expectBounded503(await timed(send));
  } finally {
    await worker.start();
  }
  await settle();
}

const readiness = async () => (await request(service.baseUrl, 'GET', '/readyz')).status;

/** Waits until /readyz answers `status`, and answers how long that took. */
async function readyzBecomes(status: number): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await readiness()) === status, 30_000, `/readyz to answer ${status}`);
  return Date.now() - started;
}

describe('the worker away', () => {
  it('/readyz follows the worker within seconds, both ways', async () => {
    await readyzBecomes(200);
    await worker.kill();
    try {
      expect(await readyzBecomes(503)).toBeLessThan(10_000);
    } finally {
      await worker.start();
    }
    expect(await readyzBecomes(200)).toBeLessThan(10_000);
  }, 90_000);

  it('an attempt is answered 503 within 10 s and never charged when the worker returns; the same request again charges once', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    await answered503WhileWorkerAway(() => keyedAttempt(checkout, 'outage-attempt-1'));
    expect(await chargesOf(checkout.id)).toHaveLength(0);

    const again = await keyedAttempt(checkout, 'outage-attempt-1');
    expect([again.status, again.body.charge?.status]).toEqual([201, 'succeeded']);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  }, 90_000);

  it('a review decision is answered 503 within 10 s and the review stays pending; decided again, it is approved once', async () => {
    const reviewId = await pausedForReview(service, shop);
    const decide = () => request(service.baseUrl, 'POST', `/admin/v1/reviews/${reviewId}/approve`, { token: service.adminToken });
    await answered503WhileWorkerAway(decide);
    expect((await service.deps.db('reviews').where({ id: reviewId }).first()).status).toBe('pending');

    const approved = await decide();
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
  }, 90_000);

  it('a refund is answered 503 within 10 s and does nothing when the worker returns; sent again, it refunds once', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1800 });
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.body.charge?.status).toBe('succeeded');
    const refund = () => request(service.baseUrl, 'POST', `/api/v1/charges/${paid.body.charge.id}/refund`, { token: shop.merchant.api_key, headers: { 'idempotency-key': `outage-refund-${checkout.id}` } });
    await answered503WhileWorkerAway(refund);
    expect((await service.deps.db('charges').where({ id: paid.body.charge.id }).first()).status).toBe('succeeded');

    const again = await refund();
    expect([again.status, again.body.status]).toEqual([200, 'refunded']);
  }, 90_000);
});

describe('the Temporal server away', () => {
  it('a checkout creation and an attempt are answered 503 within 10 s; once it is back, the attempt sent again charges once', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 3100 });
    await temporal.kill();
    try {
      expectBounded503(await timed(() => request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, body: { type: 'deposit', customer_id: shop.customerId, fixed_amount_cents: 900 } })));
      expectBounded503(await timed(() => keyedAttempt(checkout, 'outage-attempt-2')));
      expect(await readyzBecomes(503)).toBeLessThan(5_000);
    } finally {
      await temporal.start();
    }
    // The API's client and the worker reconnect by themselves, and readiness says so within seconds.
    expect(await readyzBecomes(200)).toBeLessThan(15_000);
    await settle();
    expect(await chargesOf(checkout.id)).toHaveLength(0);

    const again = await waitFor(async () => {
      const res = await keyedAttempt(checkout, 'outage-attempt-2');
      return res.status === 503 ? undefined : res;
    }, 60_000, 'the attempt to go through once the worker reconnected');
    expect([again.status, again.body.charge?.status]).toEqual([201, 'succeeded']);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  }, 180_000);
});
