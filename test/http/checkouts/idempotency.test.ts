import { randomUUID } from 'node:crypto';
import { startService, type Service } from '../../support/harness';
import { request, uniqueCustomer } from '../../support/http';
import { WorkflowUpdateStage } from '@temporalio/client';
import { BANK, CARD, createCheckout, getCharge, openShop, waitFor, type CreatedCheckout, type Shop } from '../../support/fixtures';
import { startWorkerSweeps } from '../../../src/worker';
import { deleteExpiredIdempotencyKeys } from '../../../src/storage/idempotency-keys';
import { checkoutExpiryWorkflowId } from '../../../workflows/contract';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.stop());

/** `to`: the in-process API (service.ownUrl) for a request that must meet a dependency patched here. */
const post = (shop: Shop, path: string, body: unknown, key: string, to = service.baseUrl) =>
  request(to, 'POST', path, { token: shop.merchant.api_key, body, headers: { 'idempotency-key': key } });

describe('Idempotency-Key on POST', () => {
  it('replays the first answer for the same key and body, marked Idempotent-Replayed', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = uniqueCustomer();
    const first = await post(shop, '/api/v1/customers', body, key);
    const second = await post(shop, '/api/v1/customers', body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await service.deps.db('customers').where({ email: body.email })).toHaveLength(1);
    // Without a key the same body runs again (and here meets the uniqueness rule).
    expect((await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body })).status).toBe(422);
  });

  it('answers 422 {error, hint} when the key is reused with a different body or path', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    expect((await post(shop, '/api/v1/customers', uniqueCustomer(), key)).status).toBe(201);
    const changed = await post(shop, '/api/v1/customers', uniqueCustomer(), key);
    expect(changed.status).toBe(422);
    expect(changed.body).toEqual({ error: 'Idempotency-Key already used for a different request.', hint: expect.any(String), request_id: expect.any(String) });
    const otherPath = await post(shop, '/api/v1/checkouts', { customer_id: shop.customerId, type: 'deposit' }, key);
    expect(otherPath.status).toBe(422);
    const invalid = await post(shop, '/api/v1/customers', uniqueCustomer(), 'has spaces in it');
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toBe('Invalid Idempotency-Key header.');
  });

  // Audit finding: a keyed checkout create's stored answer held its client_secret (and the url
  // carrying it) in plain text for 24 hours, where the service keeps that secret only as a hash.
  it('stores the answer sealed: a keyed checkout create\'s client_secret is not in the table, and the replay still carries it', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 900 };
    const first = await post(shop, '/api/v1/checkouts', body, key);
    expect(first.status).toBe(201);
    const row = await service.deps.db('idempotency_keys').where({ key }).first();
    expect(row.response_body).not.toContain(first.body.client_secret);
    expect(row.response_body).not.toContain(first.body.id);
    const again = await post(shop, '/api/v1/checkouts', body, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // An answer stored before answers were sealed (plain JSON) still replays.
    await service.deps.db('idempotency_keys').where({ key }).update({ response_body: JSON.stringify(first.body) });
    expect((await post(shop, '/api/v1/checkouts', body, key)).body).toEqual(first.body);
  });

  it('runs two concurrent identical checkout creates once: one checkout, one workflow, id derived from the key', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 700 };
    const [a, b] = await Promise.all([post(shop, '/api/v1/checkouts', body, key), post(shop, '/api/v1/checkouts', body, key)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toEqual(b.body);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    expect(await service.deps.db('checkouts').where({ customer_id: shop.customerId })).toHaveLength(1);
    const description = await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(a.body.id)).describe();
    expect(description.workflowId).toBe(checkoutExpiryWorkflowId(a.body.id));
  });

  it('never starts a second checkout for a key whose stored answer is gone: answers the same checkout again (the id and secret are derived from the key)', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit' };
    const first = await post(shop, '/api/v1/checkouts', body, key);
    expect(first.status).toBe(201);
    await service.deps.db('idempotency_keys').where({ key }).delete();
    const again = await post(shop, '/api/v1/checkouts', body, key);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, client_secret: first.body.client_secret, url: first.body.url });
    expect(await service.deps.db('checkouts').where({ customer_id: shop.customerId })).toHaveLength(1);
  });

  it('refuses a key whose checkout exists but cannot be answered again (its workflow ended)', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit' };
    const first = await post(shop, '/api/v1/checkouts', body, key);
    await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(first.body.id)).terminate('test');
    await service.deps.db('idempotency_keys').where({ key }).delete();
    const again = await post(shop, '/api/v1/checkouts', body, key);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ error: 'A checkout was already started with this Idempotency-Key.', hint: expect.stringContaining(first.body.id), request_id: expect.any(String) });
    expect(await service.deps.db('checkouts').where({ customer_id: shop.customerId })).toHaveLength(1);
  });

  it('makes the checkout when a create is sent again under its key after a 503 that came once its workflow had started', async () => {
    const shop = await openShop(service);
    const db = service.deps.db;
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 900 };
    // The first insert of this customer's checkout fails as on a connection the database dropped
    // (57P01, answered 503), after the checkout's workflow has started.
    const name = `fail_once_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await db.raw(`CREATE SEQUENCE ${name}`);
    await db.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.customer_id = '${shop.customerId}' THEN
          IF nextval('${name}') = 1 THEN RAISE EXCEPTION 'terminating connection' USING ERRCODE = '57P01'; END IF;
        END IF;
        RETURN NEW;
      END $$`);
    await db.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON checkouts FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    try {
      const first = await post(shop, '/api/v1/checkouts', body, key);
      expect(first.status).toBe(503);
      // The 503 asks for a retry under the key: it makes the checkout, once.
      const again = await post(shop, '/api/v1/checkouts', body, key);
      expect([again.status, again.body.error]).toEqual([201, undefined]);
      expect(again.body.fixed_amount_cents).toBe(900);
      const read = await request(service.baseUrl, 'GET', `/api/v1/checkouts/${again.body.id}`, { token: shop.merchant.api_key });
      expect(read.status).toBe(200);
      expect(await db('checkouts').where({ customer_id: shop.customerId })).toHaveLength(1);
      const third = await post(shop, '/api/v1/checkouts', body, key);
      expect(third.body).toEqual(again.body);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await db.raw(`DROP TRIGGER ${name} ON checkouts`);
      await db.raw(`DROP FUNCTION ${name}()`);
      await db.raw(`DROP SEQUENCE ${name}`);
    }
  });

  it('keys are scoped to the merchant: another merchant with the same key gets its own result', async () => {
    const [one, two] = [await openShop(service), await openShop(service)];
    const key = randomUUID();
    const a = await post(one, '/api/v1/checkouts', { customer_id: one.customerId, type: 'deposit' }, key);
    const b = await post(two, '/api/v1/checkouts', { customer_id: two.customerId, type: 'deposit' }, key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys sent with the browser-safe client secret apart from the API key\'s', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    // A page showing the merchant's client secret sends a device ping under a key the merchant's server then uses.
    const ping = await request(service.baseUrl, 'POST', '/api/v1/device_pings', {
      token: shop.merchant.client_secret,
      body: { latitude: 40.7128, longitude: -74.006, customer_id: shop.customerId },
      headers: { 'idempotency-key': key },
    });
    expect(ping.status).toBe(201);
    const created = await post(shop, '/api/v1/checkouts', { customer_id: shop.customerId, type: 'deposit' }, key);
    expect([created.status, created.body.error]).toEqual([201, undefined]);
    // And the other way round: the page cannot tell that the server used a key.
    const serverFirst = await post(shop, '/api/v1/checkouts', { customer_id: shop.customerId, type: 'deposit' }, `${key}-server-2`);
    expect(serverFirst.status).toBe(201);
    const pageAfter = await request(service.baseUrl, 'POST', '/api/v1/device_pings', {
      token: shop.merchant.client_secret,
      body: { latitude: 40.7128, longitude: -74.006, customer_id: shop.customerId },
      headers: { 'idempotency-key': `${key}-server-2` },
    });
    expect([pageAfter.status, pageAfter.body.error]).toEqual([201, undefined]);
  });

  it('replays a refused request too, and a refund replays its 200 instead of "Unable to refund charge."', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const refused = await post(shop, '/api/v1/checkouts', { customer_id: 'cus_missing', type: 'deposit' }, key);
    expect(refused.status).toBe(422);
    const again = await post(shop, '/api/v1/checkouts', { customer_id: 'cus_missing', type: 'deposit' }, key);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
    const paid = await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': checkout.client_secret } });
    const chargeId = paid.body.charge.id as string;
    await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
    const refundKey = randomUUID();
    const r1 = await post(shop, `/api/v1/charges/${chargeId}/refund`, undefined, refundKey);
    const r2 = await post(shop, `/api/v1/charges/${chargeId}/refund`, undefined, refundKey);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(r2.body).toEqual(r1.body);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
  });

  it('forgets a key after 24 hours', async () => {
    const shop = await openShop(service);
    const key = randomUUID();
    const body = { customer_id: shop.customerId, type: 'deposit' };
    const first = await post(shop, '/api/v1/checkouts', body, key);
    await service.deps.db('idempotency_keys').where({ key }).update({ created_at: service.deps.db.raw("now() - interval '25 hours'") });
    // Another request with the key is no longer a mismatch: the key is new again.
    const later = await post(shop, '/api/v1/customers', uniqueCustomer(), key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(first.status).toBe(201);
  });

  // Nothing ever deleted a stored answer (with a created checkout's client_secret, sealed): the
  // table kept every key for ever.
  it("deletes stored answers past their 24 hours from the worker's sweeps and keeps fresh ones; the key then runs anew", async () => {
    const shop = await openShop(service);
    const db = service.deps.db;
    const expired = [randomUUID(), randomUUID(), randomUUID()];
    const fresh = randomUUID();
    for (const key of [...expired, fresh]) expect((await post(shop, '/api/v1/customers', uniqueCustomer(), key)).status).toBe(201);
    await db('idempotency_keys').whereIn('key', expired).update({ created_at: db.raw("now() - interval '24 hours 1 minute'") });
    await db('idempotency_keys').where({ key: fresh }).update({ created_at: db.raw("now() - interval '23 hours 59 minutes'") });
    const stop = startWorkerSweeps({ ...service.deps, config: { ...service.deps.config, idempotencySweepMs: 50 } });
    try {
      await waitFor(async () => (await db('idempotency_keys').whereIn('key', expired)).length === 0, 10_000, 'expired keys to be deleted');
    } finally {
      await stop();
    }
    expect(await db('idempotency_keys').where({ key: fresh })).toHaveLength(1);
    // A request reusing an expired key runs anew, even with another body; the fresh key is still remembered.
    const again = await post(shop, '/api/v1/customers', uniqueCustomer(), expired[0]!);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect((await post(shop, '/api/v1/customers', uniqueCustomer(), fresh)).status).toBe(422);
  });

  it('deletes expired keys oldest first, a batch per statement, until none is left', async () => {
    const db = service.deps.db;
    const expired = () => db('idempotency_keys').where('created_at', '<', db.raw("now() - interval '24 hours'"));
    await deleteExpiredIdempotencyKeys(db);
    const rows = Array.from({ length: 7 }, (_, i) => ({ scope: 'merchant:mer_batch', key: `batch-${i}-${randomUUID()}`, request_hash: 'x', created_at: db.raw(`now() - interval '${30 - i} hours'`) }));
    await db('idempotency_keys').insert(rows);
    expect(await deleteExpiredIdempotencyKeys(db, { batchSize: 3, maxBatches: 1 })).toBe(3);
    // The oldest went first.
    expect((await expired()).map((r: { key: string }) => r.key).sort()).toEqual(rows.slice(3).map((r) => r.key).sort());
    expect(await deleteExpiredIdempotencyKeys(db, { batchSize: 3 })).toBe(4);
    expect(await expired()).toHaveLength(0);
  });

  it('makes a new checkout for a checkout create sent with a key again after its 24 hours', async () => {
    const shop = await openShop(service);
    const db = service.deps.db;
    const key = randomUUID();
    const first = await post(shop, '/api/v1/checkouts', { customer_id: shop.customerId, type: 'deposit' }, key);
    expect(first.status).toBe(201);
    // A day and more later: the key and the checkout it made are 25 hours old.
    const dayAgo = () => db.raw("now() - interval '25 hours'");
    await db('idempotency_keys').where({ key }).update({ created_at: dayAgo() });
    await db('checkouts').where({ id: first.body.id }).update({ created_at: dayAgo() });
    const later = await post(shop, '/api/v1/checkouts', { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 500 }, key);
    expect([later.status, later.body.error]).toEqual([201, undefined]);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.body.fixed_amount_cents).toBe(500);
    expect(await db('checkouts').where({ customer_id: shop.customerId })).toHaveLength(2);
  });

  it('stores no 429: a wallet attempt the velocity limits refused goes through under its key once the limit has passed', async () => {
    const shop = await openShop(service, { velocity_limits: { enabled: true, card_attempts_per_hour: 1, ip_attempts_per_hour: 100 } });
    const first = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const second = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const key = randomUUID();
    const attemptWithKey = () =>
      request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${second.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': second.client_secret, 'idempotency-key': key } });
    expect((await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${first.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': first.client_secret } })).status).toBe(201);
    const limited = await attemptWithKey();
    expect(limited.status).toBe(429);
    // The hour is over (the card's attempts are 2 hours old): the retry the 429 asked for, under its key, is made.
    await service.deps.db('attempt_log').where({ merchant_id: shop.merchant.id }).update({ created_at: service.deps.db.raw("now() - interval '2 hours'") });
    const retried = await attemptWithKey();
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(retried.body.charge.status).toBe('succeeded');
    const replayed = await attemptWithKey();
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body]).toEqual([201, 'true', retried.body]);
  });

  it('wallet attempts: two concurrent identical attempts with one key make one charge; keys are scoped to the checkout', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1200 });
    const key = randomUUID();
    const attemptWith = (c: { id: string; client_secret: string }) =>
      request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${c.id}/attempts`, {
        body: { payment_method: CARD('4000000000000002') },
        headers: { 'x-client-secret': c.client_secret, 'idempotency-key': key },
      });
    const [a, b] = await Promise.all([attemptWith(checkout), attemptWith(checkout)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.charge.id).toBe(b.body.charge.id);
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(1);
    // The same key on another checkout is another attempt.
    const other = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1200 });
    const c = await attemptWith(other);
    expect(c.status).toBe(201);
    expect(c.body.charge.id).not.toBe(a.body.charge.id);
    expect(c.headers.get('idempotent-replayed')).toBeNull();
  });
});

// Audit regression: a wallet attempt whose update was accepted (and charged) but whose answer was
// lost got a 503 ("send the same request again"), and the same request with the same key was then
// refused 422 (in progress, or completed) by the very charge it had made.
describe('wallet attempt sent again under its key after a 503 whose update was accepted', () => {
  /** The update reaches the workflow and runs, but every call answers gRPC UNAVAILABLE (its answer lost). */
  function loseUpdateAnswers(): () => void {
    const lost = () => Object.assign(new Error('14 UNAVAILABLE: connection reset'), { code: 14, details: 'connection reset', metadata: {} });
    const workflow = service.deps.temporal.workflow;
    const real = workflow.getHandle.bind(workflow);
    workflow.getHandle = ((id: string, ...rest: unknown[]) => {
      const handle = (real as (...args: unknown[]) => ReturnType<typeof real>)(id, ...rest);
      return {
        ...handle,
        executeUpdate: async (def: Parameters<typeof handle.startUpdate>[0], options: Parameters<typeof handle.startUpdate>[1]) => {
          const started = await handle.startUpdate(def, { ...options, waitForStage: WorkflowUpdateStage.ACCEPTED } as never);
          await started.result().catch(() => undefined);
          throw lost();
        },
        // The service's one question after that (was it accepted?) loses its answer too.
        startUpdate: async () => {
          throw lost();
        },
      };
    }) as typeof workflow.getHandle;
    // A first attempt sends its update with the workflow's start: its answer is lost the same way.
    const realWithStart = workflow.executeUpdateWithStart.bind(workflow);
    workflow.executeUpdateWithStart = (async (...args: Parameters<typeof realWithStart>) => {
      await realWithStart(...args).catch(() => undefined);
      throw lost();
    }) as typeof workflow.executeUpdateWithStart;
    return () => {
      workflow.getHandle = real;
      workflow.executeUpdateWithStart = realWithStart;
    };
  }
  const attemptWithKey = (c: CreatedCheckout, body: unknown, key: string, to = service.baseUrl) =>
    request(to, 'POST', `/wallet/v1/checkouts/${c.id}/attempts`, { body, headers: { 'x-client-secret': c.client_secret, 'idempotency-key': key } });

  it.each([
    ['a pending bank charge', () => ({ payment_method: BANK() }), 'pending'],
    ['a succeeded card charge (the checkout completed)', () => ({ payment_method: CARD() }), 'succeeded'],
  ])('%s: the retry answers 201 with that charge', async (_what, makeBody, status) => {
    const shop = await openShop(service, { sandbox_settlement_seconds: 600 });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    const key = randomUUID();
    const body = makeBody();
    const restore = loseUpdateAnswers();
    let first;
    try {
      // To this process's API, whose Temporal client loses the answers (with replicas, the
      // round-robin address would reach another API half the time).
      first = await attemptWithKey(checkout, body, key, service.ownUrl);
    } finally {
      restore();
    }
    // The attempt began (its charge is written), so the service kept asking for its answer before
    // giving up: the first request answers the charge, or a 503 once its answers stayed lost.
    const charges = await service.deps.db('charges').where({ checkout_id: checkout.id });
    expect(charges.map((c) => c.status)).toEqual([status]);
    expect([503, 201]).toContain(first.status);
    if (first.status === 201) expect(first.body.charge).toMatchObject({ id: charges[0].id, status });

    const retry = await attemptWithKey(checkout, body, key);
    expect(retry.status).toBe(201);
    expect(retry.body.charge).toMatchObject({ id: charges[0].id, status, amount_cents: 2500 });
    // Another key is a new attempt, refused by the charge in progress or the completed checkout.
    expect((await attemptWithKey(checkout, body, randomUUID())).status).toBe(422);
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(1);
  }, 120_000);
});

// Audit regression: a refund whose workflow was started (and refunded the charge) but whose answer
// was lost got a 503 ("retry the request"), and the same request with the same key was then refused
// 422 "Unable to refund charge." by the very refund it had made: the merchant learnt of a failure.
// Since refunds are fenced, the request whose answer was lost finds its refund claimed (its fence)
// and answers it refunded itself; sent again under its key, it answers the same.
describe('refund sent again under its key after its answer from Temporal was lost', () => {
  /** The refund workflow starts and runs to its end, but the call answers gRPC UNAVAILABLE (its answer lost). */
  function loseRefundAnswers(): () => void {
    const workflow = service.deps.temporal.workflow;
    const real = workflow.start.bind(workflow);
    workflow.start = (async (...args: Parameters<typeof real>) => {
      await (await real(...args)).result().catch(() => undefined);
      throw Object.assign(new Error('14 UNAVAILABLE: connection reset'), { code: 14, details: 'connection reset', metadata: {} });
    }) as typeof workflow.start;
    return () => {
      workflow.start = real;
    };
  }

  it('the request and its retry answer 200 with the refunded charge; another key is a second refund, refused', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
    const paid = await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body: { payment_method: CARD() }, headers: { 'x-client-secret': checkout.client_secret } });
    const chargeId = paid.body.charge.id as string;
    await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
    const key = randomUUID();
    const restore = loseRefundAnswers();
    let first;
    try {
      first = await post(shop, `/api/v1/charges/${chargeId}/refund`, undefined, key, service.ownUrl);
    } finally {
      restore();
    }
    expect([first.status, first.body.status]).toEqual([200, 'refunded']);
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('refunded');

    const retry = await post(shop, `/api/v1/charges/${chargeId}/refund`, undefined, key);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: chargeId, status: 'refunded', amount_cents: 900 });
    const other = await post(shop, `/api/v1/charges/${chargeId}/refund`, undefined, randomUUID());
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('Unable to refund charge.');
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(1);
  }, 60_000);
});
