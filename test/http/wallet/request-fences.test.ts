// A review decision or a refund whose request was answered 503 is never applied afterwards, and
// one the worker took on first is answered with its outcome: the request's fence in PostgreSQL
// decides who came first. The late work is forced with row locks held by the test, so the worker's
// task begins in time (before acceptBy) and reaches the database only after the request gave up.
// Each test fails with the fence's claim taken out of the activities.
import type { Knex } from 'knex';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createDb } from '../../../src/storage/db';
import { fenceOnGivingUp } from '../../../src/temporal/deadlines';
import { REFUND_UNDER_WAY } from '../../../src/charges/refund';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request, type JsonResponse } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, paidCardDeposit, waitFor, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));
beforeEach(() => {
  receiver.responder = () => ({ status: 200 });
});

/** The contract's bound on every answer. */
const ANSWER_WITHIN_MS = 10_000;

const db = () => service.deps.db;
const admin = (path: string) => request(service.baseUrl, 'POST', `/admin/v1${path}`, { token: service.adminToken });

/** Sends the request and answers it with how long it took. */
async function timed(send: Promise<JsonResponse>): Promise<JsonResponse & { ms: number }> {
  const started = Date.now();
  const res = await send;
  return Object.assign(res, { ms: Date.now() - started });
}

function expectBounded503(res: JsonResponse & { ms: number }, hint: RegExp): void {
  expect([res.status, res.ms < ANSWER_WITHIN_MS]).toEqual([503, true]);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.body).toEqual({ error: expect.any(String), hint: expect.stringMatching(hint), request_id: expect.any(String) });
}

/** A transaction of the test's own, holding row locks until it ends. */
async function holding(lock: (trx: Knex.Transaction) => Promise<unknown>): Promise<Knex.Transaction> {
  const trx = await db().transaction();
  await lock(trx);
  return trx;
}

/** Waits until a statement of this database (`like`, an SQL LIKE pattern) waits for a lock. */
function waitingForLock(like: string, what: string): Promise<true> {
  return waitFor(async () => {
    const { rows } = await db().raw(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE ?`, [like]);
    return rows.length > 0 || undefined;
  }, 15_000, what);
}

/** The statements that wait: the refund's claim for the test's lock, the request's fence write for the worker's uncommitted claim. */
const REFUND_INSERT = '%into "refunds"%';
const FENCE_WRITE = '%request_fences%';

async function reviewInProgress(): Promise<{ reviewId: string; checkoutId: string }> {
  const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 } });
  const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 900 });
  const paused = await attempt(service, checkout, { payment_method: CARD() });
  expect(paused.status).toBe(202);
  return { reviewId: paused.body.review.id, checkoutId: checkout.id };
}

const fencesOf = (prefix: string) => db()('request_fences').where('id', 'like', `${prefix}%`).select('state');

describe('a review decision answered 503 is never recorded later', () => {
  it('a decline whose activity reaches the review after its request answered 503 is refused there; the next decision decides once', async () => {
    const { reviewId, checkoutId } = await reviewInProgress();
    // The decision's activity begins in time, then waits for the review row until its request has answered.
    const lock = await holding((trx) => trx('reviews').where({ id: reviewId }).forUpdate());
    let declined;
    try {
      declined = await timed(admin(`/reviews/${reviewId}/decline`));
    } finally {
      await lock.commit();
    }
    expectBounded503(declined, /send the same request again/);
    expect(await fencesOf(`${reviewId}-decision-`)).toEqual([{ state: 'answered' }]);

    // Past the lock, the activity finds the request answered and records nothing: the workflow takes
    // the next decision (sent again while the refused one is still being refused, it waits its turn).
    const approved = await admin(`/reviews/${reviewId}/approve`);
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
    expect(await fencesOf(`${reviewId}-decision-`)).toEqual(expect.arrayContaining([{ state: 'answered' }, { state: 'claimed' }]));
    const events = await db()('events').where({ checkout_id: checkoutId }).whereIn('type', ['checkout.review.approved', 'checkout.review.declined']).select('type');
    expect(events.map((e: { type: string }) => e.type)).toEqual(['checkout.review.approved']);
    expect(await db()('charges').where({ checkout_id: checkoutId })).toHaveLength(1);
    expect((await db()('checkouts').where({ id: checkoutId }).first()).state).not.toBe('blocked');
  });

  it('a decision recorded before its request gave up is answered as decided (200), not 503', async () => {
    const { reviewId, checkoutId } = await reviewInProgress();
    // The activity claims the request and records the decline, then waits for the checkout row past
    // the request's reach: the request's fence write waits for that commit and finds it claimed.
    const lock = await holding((trx) => trx('checkouts').where({ id: checkoutId }).forUpdate());
    const declining = timed(admin(`/reviews/${reviewId}/decline`));
    try {
      await waitingForLock(FENCE_WRITE, 'the request to give up and meet the decision being recorded');
    } finally {
      await lock.commit();
    }
    const declined = await declining;
    expect([declined.status, declined.body.status, declined.ms < ANSWER_WITHIN_MS]).toEqual([200, 'declined', true]);
    expect(declined.body).toMatchObject({ id: reviewId, checkout_id: checkoutId, decided_by: 'admin API', decided_at: expect.any(String) });
    expect(await fencesOf(`${reviewId}-decision-`)).toEqual([{ state: 'claimed' }]);
    expect((await db()('reviews').where({ id: reviewId }).first()).status).toBe('declined');
    // A second decision is the 422 of a decided review.
    expect((await admin(`/reviews/${reviewId}/approve`)).status).toBe(422);
  });
});

describe('a refund answered 503 is never made later', () => {
  const paidCharge = (shop: Shop) => paidCardDeposit(service, shop);
  const refund = (shop: Shop, chargeId: string, key: string) => timed(request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key, headers: { 'idempotency-key': key } }));
  const refundsOf = (chargeId: string) => db()('refunds').where({ charge_id: chargeId }).select('status');
  const workflowStatus = async (chargeId: string) => (await service.deps.temporal.workflow.getHandle(chargeId).describe()).status.name;

  it('a refund whose claim comes after its request answered 503 refunds nothing; the same request sent again refunds once', async () => {
    const shop = await openShop(service, { enabled_events: ['checkout.refunded'] });
    const chargeId = await paidCharge(shop);
    const key = `fenced-refund-${chargeId}`;
    // The refund's workflow starts in time; its claim waits for the charge row until its request has answered.
    const lock = await holding((trx) => trx('charges').where({ id: chargeId }).forUpdate());
    let first;
    try {
      first = await refund(shop, chargeId, key);
    } finally {
      await lock.commit();
    }
    expectBounded503(first, /send the same request again/);
    // Past the lock, the claim finds the request answered: the workflow fails having refunded nothing.
    await waitFor(async () => (await workflowStatus(chargeId)) === 'FAILED', 30_000, 'the late refund to be refused');
    expect((await db()('charges').where({ id: chargeId }).first()).status).toBe('succeeded');
    expect(await refundsOf(chargeId)).toEqual([]);

    const again = await refund(shop, chargeId, key);
    expect([again.status, again.body.status]).toEqual([200, 'refunded']);
    expect(await refundsOf(chargeId)).toEqual([{ status: 'succeeded' }]);
    const checkoutId = (await db()('charges').where({ id: chargeId }).first()).checkout_id;
    expect(await db()('events').where({ checkout_id: checkoutId, type: 'checkout.refunded' })).toHaveLength(1);
  });

  /**
   * Sends the refund with its claim held open past the request's reach: the test's lock on the
   * merchant keeps the claim's INSERT of its refund row waiting (its foreign key), and the test's
   * lock on the charge, queued behind the claim's own, keeps the refund from being recorded after
   * it. Answers the request's answer as a promise (its fence write met the claim by then) and the
   * charge lock.
   */
  async function claimedPastTheReach(shop: Shop, chargeId: string, key: string) {
    const merchantLock = await holding((trx) => trx('merchants').where({ id: shop.merchant.id }).forUpdate());
    const answer = refund(shop, chargeId, key);
    const chargeLock = await db().transaction();
    try {
      await waitingForLock(REFUND_INSERT, 'the refund claim to wait');
      const locked = chargeLock('charges').where({ id: chargeId }).forUpdate().then(() => undefined);
      await waitingForLock(FENCE_WRITE, 'the request to give up and meet the claim');
      await merchantLock.commit();
      await locked;
    } catch (error) {
      if (!merchantLock.isCompleted()) await merchantLock.rollback();
      await chargeLock.rollback();
      throw error;
    }
    return { answer, chargeLock };
  }

  it('a refund claimed before its request gave up is answered refunded (200) once it completes within the bound', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const { answer, chargeLock } = await claimedPastTheReach(shop, chargeId, `claimed-refund-${chargeId}`);
    await chargeLock.commit();
    const res = await answer;
    expect([res.status, res.body.status, res.ms < ANSWER_WITHIN_MS]).toEqual([200, 'refunded', true]);
    expect(await refundsOf(chargeId)).toEqual([{ status: 'succeeded' }]);
  });

  it('a claimed refund still under way at the bound is a 503 that says so; the same request sent again answers it refunded, once', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const key = `under-way-${chargeId}`;
    const { answer, chargeLock } = await claimedPastTheReach(shop, chargeId, key);
    let res;
    try {
      res = await answer;
    } finally {
      await chargeLock.commit();
    }
    expectBounded503(res, /has begun and will complete.*send the same request again/);
    expect(res.body.error).toBe(REFUND_UNDER_WAY);
    await waitFor(async () => (await db()('charges').where({ id: chargeId }).first()).status === 'refunded', 30_000, 'the claimed refund to complete');

    const again = await refund(shop, chargeId, key);
    expect([again.status, again.body.status]).toEqual([200, 'refunded']);
    expect(await refundsOf(chargeId)).toEqual([{ status: 'succeeded' }]);
  });
});

describe('a request fence while PostgreSQL does not answer either', () => {
  it('is unknown by the bound it was given, never a wait past it, so the 503 says the work may still take effect', async () => {
    // A server that takes the connection and never says a word: no error comes to end the wait.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const unreachable = createDb(`postgres://payments@127.0.0.1:${port}/payments`, { acquireTimeoutMs: 60_000 });
    try {
      const started = Date.now();
      expect(await fenceOnGivingUp(unreachable, 'fence-of-a-double-outage', started + 1_000)).toBeNull();
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      // The connection it waits for ends, and so does the pool, before the test does.
      for (const socket of sockets) socket.destroy();
      await unreachable.destroy().catch(() => undefined);
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
