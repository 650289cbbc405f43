/**
 * A PostgreSQL outage under load, with the service left running: the test's own cluster (so the
 * shared server is untouched) is stopped for about 6 seconds while wallet attempts, deposits and
 * withdrawals, are in flight, then started again. Every request is answered (a 503 with
 * Retry-After is an answer; a 500 or no answer is not), the service recovers by itself, and the
 * money rules hold afterwards: each succeeded charge's checkout.succeeded arrives, no charge is
 * left `created`, and no checkout.release_hold reaches the merchant without its hold.
 */
import { randomUUID } from 'node:crypto';
import { startService, type Service } from '../support/harness';
import { PgCluster } from '../support/pg-cluster';
import { WebhookReceiver } from '../support/receiver';
import { request, type JsonResponse } from '../support/http';
import { BANK, CARD, createCheckout, openShop, waitFor, type CreatedCheckout, type Shop } from '../support/fixtures';
import { createScratchDatabase } from '../../src/storage/db';

/** Nothing may hang: an answer slower than this fails the test. */
const ANSWER_LIMIT_MS = 45_000;
const OUTAGE_MS = 6_000;
/**
 * The reconciler's lease as the service under test is configured (a charge left `created` is
 * settled once older than it). Services without a reconciler ignore the setting, and the check
 * below then shows any charge the outage left `created` for good.
 */
const LEASE_SECONDS = 10;

let cluster: PgCluster | undefined;
let service: Service | undefined;
let receiver: WebhookReceiver | undefined;

beforeAll(async () => {
  cluster = await new PgCluster().init();
  receiver = await new WebhookReceiver().start();
  const databaseUrl = await createScratchDatabase('payments_outage', cluster.adminUrl);
  // A slow processor call keeps charges at the processor (`created`) when the server stops.
  service = await startService({ databaseUrl, env: { RECONCILE_LEASE_SECONDS: String(LEASE_SECONDS), SANDBOX_LATENCY_MS: '400' } });
}, 120_000);

afterAll(async () => {
  // The server may still be down if the test failed mid-outage: start it so the service's pools
  // close cleanly and its database is dropped, then remove the cluster whatever happened.
  try {
    if (cluster && service) {
      await cluster.start().catch(() => undefined);
      await service.stop();
    }
    await receiver?.stop();
  } finally {
    await cluster?.destroy();
  }
}, 120_000);

interface Answered {
  what: string;
  status: number | 'no answer' | 'network error';
  retryAfter: string | null;
  text: string;
  ms: number;
}

/** One request with a deadline: its status, or why there was none. */
async function timed(what: string, send: (signal: AbortSignal) => Promise<JsonResponse>): Promise<Answered> {
  const started = Date.now();
  try {
    const res = await send(AbortSignal.timeout(ANSWER_LIMIT_MS));
    return { what, status: res.status, retryAfter: res.headers.get('retry-after'), text: res.text.slice(0, 300), ms: Date.now() - started };
  } catch (error) {
    const name = (error as Error).name;
    return { what, status: name === 'TimeoutError' || name === 'AbortError' ? 'no answer' : 'network error', retryAfter: null, text: String(error), ms: Date.now() - started };
  }
}

function walletAttempt(s: Service, checkout: CreatedCheckout, key: string, body: Record<string, unknown>, signal: AbortSignal) {
  return requestWithSignal(s.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body, headers: { 'x-client-secret': checkout.client_secret, 'idempotency-key': key } }, signal);
}

async function requestWithSignal(baseUrl: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> }, signal: AbortSignal): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(baseUrl + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body, headers: res.headers, text };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a PostgreSQL outage while payments are in flight', () => {
  it('answers every attempt (503 at worst), recovers by itself, and keeps the money rules', async () => {
    const s = service!;
    const r = receiver!;
    const shop: Shop = await openShop(s, { webhook_url: r.url, sandbox_settlement_seconds: 1, checkout_expiry_seconds: 900, enabled_events: ['checkout.failed'] });
    // Ready before the outage: deposits and withdrawals, each to be paid by one attempt.
    const deposits = await Promise.all(Array.from({ length: 20 }, (_, i) => createCheckout(s, shop, { type: 'deposit', fixed_amount_cents: 1_000 + i })));
    const withdrawals = await Promise.all(Array.from({ length: 20 }, (_, i) => createCheckout(s, shop, { type: 'withdrawal', fixed_amount_cents: 2_000 + i })));
    const paying = deposits.flatMap((d, i) => [
      { what: `deposit ${d.id}`, checkout: d, key: randomUUID(), method: i % 4 === 3 ? BANK() : CARD() },
      { what: `withdrawal ${withdrawals[i]!.id}`, checkout: withdrawals[i]!, key: randomUUID(), method: CARD() },
    ]);

    // Attempts go out every 150 ms from 1.5 s before the stop until after the restart; checkout
    // creations (the API's own writes) go out beside them.
    const answers: Array<Promise<Answered>> = [];
    const attempts: Array<{ p: (typeof paying)[number]; answer: Promise<Answered> }> = [];
    const sending = (async () => {
      for (const [i, p] of paying.entries()) {
        const answer = timed(`attempt on ${p.what}`, (signal) => walletAttempt(s, p.checkout, p.key, { payment_method: p.method }, signal));
        attempts.push({ p, answer });
        answers.push(answer);
        if (i % 5 === 0) {
          const key = randomUUID();
          answers.push(timed(`checkout create ${key}`, (signal) => requestWithSignal(s.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, headers: { 'idempotency-key': key }, body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 500 } }, signal)));
        }
        await sleep(150);
      }
    })();
    await sleep(1_500);
    const stoppedAt = Date.now();
    await cluster!.stop('fast');
    await sleep(OUTAGE_MS);
    await cluster!.start();
    const outageMs = Date.now() - stoppedAt;
    await sending;
    const settled = await Promise.all(answers);

    // Every request answered within the limit; none with a 500 (or any 5xx other than 503 with Retry-After).
    const unanswered = settled.filter((a) => typeof a.status !== 'number');
    expect(unanswered).toEqual([]);
    const serverErrors = settled.filter((a) => typeof a.status === 'number' && a.status >= 500 && !(a.status === 503 && a.retryAfter !== null));
    expect(serverErrors).toEqual([]);
    const unexpected = settled.filter((a) => ![201, 202, 422, 503].includes(a.status as number));
    expect(unexpected).toEqual([]);
    const count = (status: number) => settled.filter((a) => a.status === status).length;
    // The outage must have been felt, or the test proved nothing.
    expect(count(503)).toBeGreaterThan(0);
    console.log(`database outage: stopped ${outageMs} ms; ${settled.length} requests: ${count(201)} 201, ${count(422)} 422, ${count(503)} 503; slowest ${Math.max(...settled.map((a) => a.ms))} ms`);

    // The service recovers by itself: a new checkout is created and paid.
    const paid = await waitFor(async () => {
      const created = await request(s.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 777 } });
      if (created.status !== 201) return false;
      const res = await request(s.baseUrl, 'POST', `/wallet/v1/checkouts/${created.body.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': created.body.client_secret } });
      return res.status === 201 && res.body.charge.status === 'succeeded' && res;
    }, 60_000, 'a checkout paid after the outage');
    expect(paid.body.charge.amount_cents).toBe(777);

    // An attempt answered 503 is sent again with its Idempotency-Key, as the wallet does after
    // Retry-After: now it gets a definite answer, and never pays twice.
    const retried: Answered[] = [];
    for (const { p, answer } of attempts) {
      if ((await answer).status !== 503) continue;
      retried.push(await timed(`retry of ${p.what}`, (signal) => walletAttempt(s, p.checkout, p.key, { payment_method: p.method }, signal)));
    }
    expect(retried.filter((a) => ![201, 202, 422].includes(a.status as number))).toEqual([]);
    console.log(`after the outage: ${retried.length} attempts retried: ${retried.filter((a) => a.status === 201).length} 201, ${retried.filter((a) => a.status === 422).length} 422`);

    // No charge stays `created` (nor in progress) past the reconciler's lease and a settling margin.
    const db = s.deps.db;
    const inProgress = async () => db('charges').where({ merchant_id: shop.merchant.id }).whereIn('status', ['created', 'pending', 'held']).select('id', 'status', 'transaction_type', 'created_at');
    const left = await waitFor(async () => {
      const rows = await inProgress();
      return rows.length === 0 ? rows : false;
    }, (LEASE_SECONDS + 45) * 1_000, 'every charge to settle').catch(async () => inProgress());
    expect(left).toEqual([]);

    // Every succeeded charge's checkout.succeeded reaches the merchant.
    const succeeded: Array<{ id: string }> = await db('charges').where({ merchant_id: shop.merchant.id, status: 'succeeded' }).select('id');
    expect(succeeded.length).toBeGreaterThan(1);
    const paidTwice = await db('charges').where({ merchant_id: shop.merchant.id, status: 'succeeded' }).groupBy('checkout_id').havingRaw('count(*) > 1').select('checkout_id');
    expect(paidTwice).toEqual([]);
    const undelivered = () => succeeded.filter((c) => !r.requests.some((q) => q.body?.type === 'checkout.succeeded' && q.body?.data?.charge?.id === c.id)).map((c) => c.id);
    await waitFor(() => undelivered().length === 0, 60_000, 'every checkout.succeeded').catch(() => undefined);
    expect(undelivered()).toEqual([]);

    // No release without a hold: each checkout.release_hold follows a checkout.hold of its charge,
    // as received, and as recorded.
    const mine = r.requests.filter((q) => q.body?.data?.charge && typeof q.body.data.charge.id === 'string');
    for (const release of mine.filter((q) => q.body.type === 'checkout.release_hold')) {
      const chargeId = release.body.data.charge.id;
      const hold = mine.find((q) => q.body.type === 'checkout.hold' && q.body.data.charge.id === chargeId && q.receivedAt <= release.receivedAt);
      expect({ release: chargeId, holdReceived: hold !== undefined }).toEqual({ release: chargeId, holdReceived: true });
    }
    const recordedReleases = await db('events').where({ merchant_id: shop.merchant.id, type: 'checkout.release_hold' }).select('charge_id');
    for (const { charge_id: chargeId } of recordedReleases) {
      const holdReceived = mine.some((q) => q.body.type === 'checkout.hold' && q.body.data.charge.id === chargeId);
      expect({ release: chargeId, holdReceived }).toEqual({ release: chargeId, holdReceived: true });
    }
  }, 300_000);
});
