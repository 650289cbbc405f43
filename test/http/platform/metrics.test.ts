import { startService, type Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { onboard, request, uniqueCustomer } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';
import { startWorkerHttp } from '../../../src/observability/worker-http';
import { MerchantIdAttribute } from '../../../workflows/contract';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/app';
import { createDb } from '../../../src/storage/db';
import { loadConfig } from '../../../src/config';

let service: Service;
let receiver: WebhookReceiver;
// Metrics are per process (Prometheus scrapes each replica): one API and one worker, so the
// requests and activities counted here are the ones this file made.
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { replicas: 1 } });

/** The value of one Prometheus sample, found by its exact name and labels (as prom-client prints them). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series} in:\n${text.split('\n').filter((l) => l.startsWith(series.split('{')[0]!)).join('\n')}`);
  return Number(line.slice(series.length + 1));
}

describe('/metrics after a real payment', () => {
  it('the API shows requests per route, charges by status and processor, the outbox backlog and open checkouts', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, card_processor: 'sandbox_beta' });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 4200 });
    const open = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    expect(open.id).toMatch(/^chk_/);
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.body.charge.status).toBe('succeeded');
    await request(service.baseUrl, 'GET', '/api/v1/charges/ch_nope', { token: shop.merchant.api_key });

    const res = await fetch(`${service.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(sample(text, 'payments_http_requests_total{method="POST",route="/wallet/v1/checkouts/:id/attempts",status="201"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'payments_http_requests_total{method="GET",route="/api/v1/charges/:id",status="422"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'payments_http_request_duration_seconds_count{method="POST",route="/wallet/v1/checkouts/:id/attempts"}')).toBeGreaterThanOrEqual(1);
    expect(text).toContain('payments_http_request_duration_seconds_bucket{le="0.5",method="POST",route="/wallet/v1/checkouts/:id/attempts"}');
    expect(sample(text, 'payments_charges{status="succeeded",processor="sandbox_beta"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'payments_open_checkouts{state="open"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'payments_outbox_backlog')).toBeGreaterThanOrEqual(0);
    // Raw paths (with ids) never become series.
    expect(text).not.toContain(checkout.id);
  });

  it('counts every checkout in review, however long its review has been pending (expiry pauses in review)', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 }, checkout_expiry_seconds: 3 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
    expect((await attempt(service, checkout, { payment_method: CARD('4000000000000002') })).status).toBe(202);
    // Past the deadline the checkout had when its review began: the review backlog an operator alerts on.
    await new Promise((r) => setTimeout(r, 3_500));
    const [inReview] = await service.deps.db('checkouts').where({ state: 'in_review' }).count('* as count');
    expect(Number(inReview!.count)).toBeGreaterThanOrEqual(1);
    const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
    expect(sample(text, 'payments_open_checkouts{state="in_review"}')).toBe(Number(inReview!.count));
  });

  it('shows how long the oldest undelivered event has waited, so a stuck outbox can be told from a busy one', async () => {
    // The merchant refuses every delivery: the event stays pending through its retries.
    receiver.responder = () => ({ status: 503 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 600 });
    await attempt(service, checkout, { payment_method: CARD() });
    await waitFor(() => receiver.forCheckout(checkout.id).length > 0);
    await new Promise((r) => setTimeout(r, 1_200));
    const [oldest] = await service.deps.db('events')
      .where({ enabled: true, channel: 'outbox', delivery_status: 'pending' })
      .select(service.deps.db.raw('extract(epoch from now() - min(created_at))::float8 as seconds'));
    const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
    receiver.responder = () => ({ status: 200 });
    const age = sample(text, 'payments_outbox_oldest_pending_seconds');
    expect(age).toBeGreaterThanOrEqual(1);
    expect(Math.abs(age - Number(oldest.seconds))).toBeLessThan(2);
  });

  it('still serves the HTTP metrics while PostgreSQL is down or hung, without the gauges it cannot read', async () => {
    // The scrape that shows the 503s of a database outage must not fail (or hang) with the database.
    const sockets = new Set<Socket>();
    const hung: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const unreachable = [`postgres://postgres@127.0.0.1:1/payments`, `postgres://postgres@127.0.0.1:${(hung.address() as AddressInfo).port}/payments`];
    try {
      for (const url of unreachable) {
        const db = createDb(url);
        const api = createApp({ ...service.deps, db }).listen(0, '127.0.0.1');
        await new Promise((resolve) => api.once('listening', resolve));
        const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
        try {
          await fetch(`${base}/healthz`);
          const started = Date.now();
          const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(8_000) });
          expect([url, res.status]).toEqual([url, 200]);
          expect(Date.now() - started).toBeLessThan(5_000);
          const text = await res.text();
          expect(sample(text, 'payments_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(1);
          expect(text).toMatch(/^payments_outbox_backlog nan$/im); // prom-client prints NaN as Nan
          expect(text).not.toMatch(/^payments_(charges|open_checkouts)\{/m);
        } finally {
          api.closeAllConnections();
          await new Promise((resolve) => api.close(resolve));
          // The hung server's connections end first: a pool waits for the connections it is opening.
          for (const socket of sockets) socket.destroy();
          await db.destroy().catch(() => undefined);
        }
      }
    } finally {
      hung.close();
    }
  });

  it("the worker's endpoint shows webhook and hold attempts with outcome and latency, and its health", async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
    await attempt(service, deposit, { payment_method: CARD() });
    await waitFor(() => receiver.forCheckout(deposit.id).some((r) => r.body.type === 'checkout.succeeded'));
    const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 500 });
    expect((await attempt(service, withdrawal, { payment_method: CARD() })).status).toBe(201);

    const worker = service.currentWorker()!;
    const http = await startWorkerHttp(worker, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${http.port}`;
    try {
      const text = await waitFor(async () => {
        const body = await (await fetch(`${base}/metrics`)).text();
        return body.includes('payments_webhook_attempts_total{channel="outbox",outcome="accepted"}') && body;
      });
      expect(sample(text, 'payments_webhook_attempts_total{channel="outbox",outcome="accepted"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'payments_webhook_attempts_total{channel="hold",outcome="accepted"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'payments_webhook_attempt_duration_seconds_count{channel="hold"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'payments_webhook_attempt_duration_seconds_count{channel="outbox"}')).toBeGreaterThanOrEqual(1);

      const healthy = await fetch(`${base}/healthz`);
      expect(healthy.status).toBe(200);
      expect(await healthy.json()).toEqual({ status: 'ok', worker: 'RUNNING' });
      await service.stopWorker();
      const stopped = await fetch(`${base}/healthz`);
      expect(stopped.status).toBe(503);
    } finally {
      http.server.close();
      if (!service.currentWorker()) await service.startWorker();
    }
  });
});

describe('/readyz', () => {
  it('is not ready while no worker polls the task queue, and names why', async () => {
    const idle = await startService({ worker: false });
    try {
      const res = await request(idle.baseUrl, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not_ready', checks: { database: 'ok', temporal: 'ok', worker: 'no_pollers', background_worker: 'no_pollers' } });
    } finally {
      await idle.stop();
    }
  });

  it('is ready once a worker polls', async () => {
    const ready = await waitFor(async () => {
      const res = await request(service.baseUrl, 'GET', '/readyz');
      return res.status === 200 && res.body.checks.background_worker === 'ok' && res;
    });
    expect(ready.body.checks).toEqual({ database: 'ok', temporal: 'ok', worker: 'ok', background_worker: 'ok' });
  });

  it('is not ready once the last worker has stopped polling, not minutes later', async () => {
    // Temporal lists a poller for five minutes after its last poll; a live worker polls at least once a minute.
    const lone = await startService({ replicas: 1 });
    try {
      await waitFor(async () => (await request(lone.baseUrl, 'GET', '/readyz')).status === 200);
      await lone.stopWorker();
      const stoppedAt = Date.now();
      const res = await waitFor(async () => {
        const answer = await request(lone.baseUrl, 'GET', '/readyz');
        return answer.status === 503 && answer;
      }, 150_000, 'readiness to see that no worker polls');
      expect(res.body.checks).toEqual({ database: 'ok', temporal: 'ok', worker: 'no_pollers', background_worker: 'no_pollers' });
      expect(Date.now() - stoppedAt).toBeLessThan(120_000);
    } finally {
      await lone.stop();
    }
  }, 200_000);

  it('answers within its deadline, database named, when PostgreSQL accepts connections and never answers', async () => {
    await withApiOnHungDatabase({}, async (base) => {
      const started = Date.now();
      const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(8_000) });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { checks: unknown }).checks).toEqual({ database: 'unreachable', temporal: 'ok', worker: 'ok', background_worker: 'ok' });
    });
  });

  it('answers a merchant request 503 with Retry-After once DATABASE_ACQUIRE_TIMEOUT_MS has passed, when PostgreSQL never answers', async () => {
    const merchant = await onboard(service);
    const config = loadConfig({ ...service.childEnv, DATABASE_ACQUIRE_TIMEOUT_MS: '1500' });
    await withApiOnHungDatabase({ acquireTimeoutMs: config.databaseAcquireTimeoutMs }, async (base) => {
      const started = Date.now();
      const res = await fetch(`${base}/api/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(uniqueCustomer()),
        signal: AbortSignal.timeout(20_000),
      });
      const waited = Date.now() - started;
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
      // knex's own default would have held it for a minute.
      expect(waited).toBeGreaterThanOrEqual(1_400);
      expect(waited).toBeLessThan(6_000);
    });
  });
});

/**
 * Runs `use` against an API of its own whose database accepts connections and never answers (a
 * hung server or a stalled network: the TCP connection opens, the start-up is never answered).
 */
async function withApiOnHungDatabase(pool: { acquireTimeoutMs?: number }, use: (base: string) => Promise<void>): Promise<void> {
  const sockets = new Set<Socket>();
  const hung: Server = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const db = createDb(`postgres://postgres@127.0.0.1:${(hung.address() as AddressInfo).port}/payments`, pool);
  const api = createApp({ ...service.deps, db }).listen(0, '127.0.0.1');
  await new Promise((resolve) => api.once('listening', resolve));
  try {
    await use(`http://127.0.0.1:${(api.address() as AddressInfo).port}`);
  } finally {
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
    for (const socket of sockets) socket.destroy();
    hung.close();
    await db.destroy().catch(() => undefined);
  }
}

describe('search attributes', () => {
  it('delivery and refund workflows carry the MerchantId search attribute', async () => {
    // A delivery workflow exists only for retries: the worker's own first attempt is refused.
    let refused = false;
    let checkoutId: string | undefined;
    receiver.responder = (r) => {
      const first = !refused && r.body?.type === 'checkout.succeeded' && r.body?.data?.id === checkoutId;
      if (first) refused = true;
      return { status: first ? 503 : 200 };
    };
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 700 });
    checkoutId = checkout.id;
    const charge = (await attempt(service, checkout, { payment_method: CARD() })).body.charge;
    const refunded = await request(service.baseUrl, 'POST', `/api/v1/charges/${charge.id}/refund`, { token: shop.merchant.api_key });
    expect(refunded.status).toBe(200);
    const [event] = await service.deps.db('events').where({ charge_id: charge.id, type: 'checkout.succeeded' });
    await waitFor(async () => (await service.deps.db('events').where({ id: event.id }).first()).delivery_status === 'delivered', 20_000, 'the retried delivery');
    for (const workflowId of [event.id as string, charge.id as string]) {
      const description = await service.deps.temporal.workflow.getHandle(workflowId).describe();
      expect(description.typedSearchAttributes.get(MerchantIdAttribute)).toBe(shop.merchant.id);
    }
  });

  it('the sandbox auto-refund of a 1.08 USD deposit, a child of the checkout workflow, is listed by MerchantId', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 108 });
    const charge = (await attempt(service, checkout, { payment_method: CARD() })).body.charge;
    // The wallet is answered before the checkout workflow starts its refund child.
    const refund = service.deps.temporal.workflow.getHandle(charge.id);
    await waitFor(() => refund.describe().then(() => true, () => false), 10_000, 'the auto-refund child to start');
    await refund.result();
    // Visibility is eventually consistent: the list catches up shortly after the child closes.
    const listed = await waitFor(async () => {
      const ids: string[] = [];
      for await (const w of service.deps.temporal.workflow.list({ query: `MerchantId = '${shop.merchant.id}'` })) ids.push(w.workflowId);
      return ids.includes(charge.id) && ids;
    }, 15_000, 'the auto-refund listed by MerchantId');
    expect(listed).toEqual(expect.arrayContaining([checkout.id, charge.id]));
    const description = await service.deps.temporal.workflow.getHandle(charge.id).describe();
    expect(description.type).toBe('refundWorkflow');
    expect(description.typedSearchAttributes.get(MerchantIdAttribute)).toBe(shop.merchant.id);
  });
});
