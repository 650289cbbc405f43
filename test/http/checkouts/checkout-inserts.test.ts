import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { hashSecret } from '../../../src/crypto';
import { newId } from '../../../src/domain/ids';
import {
  CheckoutInsertBatcher,
  CheckoutWriteOutcomeUnknown,
  insertCheckoutForCustomer,
  insertCheckoutsForCustomers,
  readBackCheckouts,
  useCheckoutStatementsForTests,
  type CheckoutStatements,
} from '../../../src/storage/checkout-inserts';
import type { NewCheckout } from '../../../src/storage/checkouts';
import { createDb, type Db } from '../../../src/storage/db';
import { openShop, walletView, type Shop } from '../../support/fixtures';
import { request } from '../../support/http';
import { startService, type Service } from '../../support/harness';
import { checkoutExpiryWorkflowId } from '../../../workflows/contract';

/**
 * Checkout INSERTs are grouped (src/storage/checkout-inserts.ts): while one statement is on its way,
 * the checkouts created meanwhile wait and go together. Each test uses a pool of its own, so its
 * batcher is fresh: the first call goes alone at once, and every call made while it is in flight
 * joins the next statement. A statement's rows share their commit's created_at (now() is the
 * transaction's start), which is how a test sees which rows went together.
 */
let service: Service;
let shop: Shop;
let otherShop: Shop;
const pools: Db[] = [];

beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
  [shop, otherShop] = await Promise.all([openShop(service), openShop(service)]);
}, 120_000);
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.destroy()));
  await service?.stop();
});

function freshPool(max = 10): Db {
  const pool = createDb(service.deps.config.databaseUrl, { max });
  pools.push(pool);
  return pool;
}

function checkoutOf(owner: Shop, changes: Partial<NewCheckout> = {}): NewCheckout {
  return {
    id: newId('checkout'),
    merchant_id: owner.merchant.id,
    customer_id: owner.customerId,
    type: 'deposit',
    flow: 'preset_deposit',
    client_secret_hash: hashSecret(newId('checkout')),
    fixed_amount_cents: 2500,
    balance_amount_cents: null,
    line_items: [],
    line_items_total_amount_cents: null,
    subscription: null,
    experience: null,
    payment_options: null,
    return_url: null,
    currency: 'USD',
    max_attempts: null,
    expires_at: new Date(Date.now() + 60_000),
    ...changes,
  };
}

const stored = (db: Db, ids: string[]) => db('checkouts').whereIn('id', ids).select('id', 'created_at');
const distinct = (dates: Date[]) => new Set(dates.map((date) => date.getTime())).size;

describe('checkout inserts', () => {
  it('writes a lone checkout at once, and the checkouts created while it is written together in one statement', async () => {
    const db = freshPool();
    const rows = Array.from({ length: 20 }, (_, index) => checkoutOf(shop, { fixed_amount_cents: 100 + index }));
    const written = await Promise.all(rows.map((row) => insertCheckoutForCustomer(db, row)));

    expect(written.map((row) => [row?.id, row?.fixed_amount_cents, row?.state])).toEqual(rows.map((row) => [row.id, row.fixed_amount_cents, 'open']));
    const createdAt = written.map((row) => row!.created_at);
    expect(distinct(createdAt.slice(1))).toBe(1); // the 19 that waited: one statement
    expect(createdAt[0]!.getTime()).not.toBe(createdAt[1]!.getTime()); // the first went alone
    expect(await stored(db, rows.map((row) => row.id))).toHaveLength(20);
  });

  it('stores every column as given, the json ones as json', async () => {
    const db = freshPool();
    const lineItem = { product_id: newId('product'), quantity: 2, total_amount_cents: 600, product_name: 'Tea', product_url: null, product_price_cents: 300, sku: 'tea', kind: 'product' as const };
    const row = checkoutOf(shop, {
      flow: 'subscription',
      fixed_amount_cents: null,
      line_items: [lineItem],
      line_items_total_amount_cents: 600,
      subscription: { interval: 'month', interval_count: 3 },
      experience: 'iframe',
      payment_options: ['credit_card', 'paypal'],
      return_url: 'https://shop.example/done',
      max_attempts: 7,
    });
    const [first, written] = await Promise.all([insertCheckoutForCustomer(db, checkoutOf(shop)), insertCheckoutForCustomer(db, row)]);
    expect(first).toBeDefined();
    const read = await db('checkouts').where({ id: row.id }).first();
    for (const found of [written, read]) {
      expect(found).toMatchObject({ ...row, client_secret_hash: row.client_secret_hash, state: 'open', attempts_count: 0 });
    }
  });

  it('refuses a missing customer and another merchant’s in a statement that writes the rest', async () => {
    const db = freshPool();
    const rows = [
      checkoutOf(shop),
      checkoutOf(shop),
      checkoutOf(shop, { customer_id: otherShop.customerId }),
      checkoutOf(shop, { customer_id: newId('customer') }),
      checkoutOf(shop),
    ];
    const written = await Promise.all(rows.map((row) => insertCheckoutForCustomer(db, row)));

    expect(written.map((row) => row?.id)).toEqual([rows[0]!.id, rows[1]!.id, undefined, undefined, rows[4]!.id]);
    expect(distinct([written[1]!.created_at, written[4]!.created_at])).toBe(1);
    expect((await stored(db, rows.map((row) => row.id))).map((row) => row.id).sort()).toEqual([rows[0]!.id, rows[1]!.id, rows[4]!.id].sort());
  });

  it('fails only the row that fails by itself when its statement fails', async () => {
    const db = freshPool();
    const existing = await insertCheckoutForCustomer(db, checkoutOf(shop));
    const rows = [checkoutOf(shop), checkoutOf(shop), checkoutOf(shop, { id: existing!.id }), checkoutOf(shop)];
    const answers = await Promise.allSettled(rows.map((row) => insertCheckoutForCustomer(db, row)));

    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((answers[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505', constraint: 'checkouts_pkey' });
    expect(await stored(db, [rows[0]!.id, rows[1]!.id, rows[3]!.id])).toHaveLength(3);
  });

  it('keeps going after a failed statement: the next checkouts are written as before', async () => {
    const db = freshPool();
    const existing = await insertCheckoutForCustomer(db, checkoutOf(shop));
    await expect(insertCheckoutForCustomer(db, checkoutOf(shop, { id: existing!.id }))).rejects.toMatchObject({ code: '23505' });
    const rows = [checkoutOf(shop), checkoutOf(shop), checkoutOf(shop)];
    expect((await Promise.all(rows.map((row) => insertCheckoutForCustomer(db, row)))).map((row) => row?.id)).toEqual(rows.map((row) => row.id));
  });

  it('fails a whole batch, without retrying its rows one by one, when no connection comes in time', async () => {
    // A PostgreSQL that accepts TCP and never answers.
    const sockets = new Set<Socket>();
    const hung: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const db = createDb(`postgres://postgres@127.0.0.1:${(hung.address() as AddressInfo).port}/payments`, { acquireTimeoutMs: 300 });
    const acquired = jest.spyOn(db.client, 'acquireConnection');
    try {
      const answers = await Promise.allSettled([checkoutOf(shop), checkoutOf(shop), checkoutOf(shop), checkoutOf(shop)].map((row) => insertCheckoutForCustomer(db, row)));
      expect(answers.map((answer) => answer.status === 'rejected' && (answer.reason as Error).name)).toEqual(Array(4).fill('KnexTimeoutError'));
      // One statement for the lone first checkout, one for the three that waited: none retried.
      expect(acquired).toHaveBeenCalledTimes(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await db.destroy();
      hung.close();
    }
  });

  it('inside a transaction writes there, alone, and a rollback undoes it', async () => {
    const db = freshPool();
    const row = checkoutOf(shop);
    await db
      .transaction(async (trx) => {
        expect((await insertCheckoutForCustomer(trx, row))?.id).toBe(row.id);
        expect(await insertCheckoutForCustomer(trx, checkoutOf(shop, { customer_id: otherShop.customerId }))).toBeUndefined();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await stored(db, [row.id])).toHaveLength(0);
  });

  it('prepares one statement per connection, whatever the number of rows', async () => {
    const db = freshPool(1);
    for (const size of [1, 3, 7]) await Promise.all(Array.from({ length: size }, () => insertCheckoutForCustomer(db, checkoutOf(shop))));
    const statements = (await db.raw<{ rows: Array<{ statement: string }> }>('select statement from pg_prepared_statements')).rows;
    expect(statements.filter((s) => s.statement.includes('INSERT INTO checkouts'))).toHaveLength(1);
  });
});

/** What pg raises when the connection drops while a statement's answer is on its way. */
function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

/** The real statements, except that the INSERT's answer is lost after PostgreSQL committed it. */
function losingAnswers(readBack: CheckoutStatements['readBack'] = readBackCheckouts): CheckoutStatements & { lost: number } {
  const statements = {
    lost: 0,
    insert: async (db: Db, rows: readonly NewCheckout[]) => {
      await insertCheckoutsForCustomers(db, rows);
      statements.lost += 1;
      throw connectionReset();
    },
    readBack,
  };
  return statements;
}

/** A pool whose every connection is refused: the database cannot be reached at all. */
function unreachablePool(): Db {
  const pool = createDb('postgres://postgres@127.0.0.1:1/payments', { acquireTimeoutMs: 2_000 });
  pools.push(pool);
  return pool;
}

describe('a batch whose answer is lost after its commit', () => {
  it('reads the batch back and answers every checkout as written (a refused customer still refused)', async () => {
    const db = freshPool();
    const statements = losingAnswers();
    const batcher = new CheckoutInsertBatcher(db, statements);
    const rows = [checkoutOf(shop), checkoutOf(shop), checkoutOf(shop, { customer_id: otherShop.customerId }), checkoutOf(shop)];
    const answers = await Promise.all(rows.map((row) => batcher.insert(row)));

    expect(statements.lost).toBe(2); // the lone first checkout's statement, then the batch's
    expect(answers.map((row) => row?.id)).toEqual([rows[0]!.id, rows[1]!.id, undefined, rows[3]!.id]);
    expect(answers[1]).toMatchObject({ state: 'open', fixed_amount_cents: 2500 });
    expect(await stored(db, rows.map((row) => row.id))).toHaveLength(3);
  });

  it('writes a batch whose statement never reached PostgreSQL once the answer is known to be lost', async () => {
    const db = freshPool();
    const batcher = new CheckoutInsertBatcher(db, { insert: () => Promise.reject(connectionReset()), readBack: readBackCheckouts });
    const row = checkoutOf(shop);
    expect((await batcher.insert(row))?.id).toBe(row.id);
    expect(await stored(db, [row.id])).toHaveLength(1);
  });

  it('fails with an unknown outcome, not as unwritten, when the database cannot be reached to read it back', async () => {
    const db = freshPool();
    const dead = unreachablePool();
    const batcher = new CheckoutInsertBatcher(db, losingAnswers((_db, rows, lost) => readBackCheckouts(dead, rows, lost)));
    const row = checkoutOf(shop);
    const failure = await batcher.insert(row).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CheckoutWriteOutcomeUnknown);
    expect((failure as CheckoutWriteOutcomeUnknown).cause).toMatchObject({ code: 'ECONNRESET' });
    expect(await stored(db, [row.id])).toHaveLength(1); // it was written all along
  });
});

describe('creating a checkout whose write answer is lost after the commit', () => {
  afterEach(() => useCheckoutStatementsForTests(service.deps.db));

  const create = (key: string) =>
    request(service.ownUrl, 'POST', '/api/v1/checkouts', {
      token: shop.merchant.api_key,
      headers: { 'Idempotency-Key': key },
      body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 3100 },
    });
  const workflowStatus = async (id: string) => (await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(id)).describe()).status.name;

  it('answers 201 with a checkout whose workflow runs', async () => {
    const statements = losingAnswers();
    useCheckoutStatementsForTests(service.deps.db, statements);
    const res = await create(`lost-after-commit-${newId('checkout')}`);

    expect(statements.lost).toBe(1);
    expect(res.status).toBe(201);
    expect(await workflowStatus(res.body.id)).toBe('RUNNING');
    expect((await walletView(service, res.body)).status).toBe(200);
  });

  it('keeps the workflow of a write it could not read back (503), and answers the retry with the same key as created', async () => {
    const dead = unreachablePool();
    useCheckoutStatementsForTests(service.deps.db, losingAnswers((_db, rows, lost) => readBackCheckouts(dead, rows, lost)));
    const key = `lost-unreadable-${newId('checkout')}`;
    const first = await create(key);
    expect(first.status).toBe(503);
    const [row] = await service.deps.db('checkouts').where({ merchant_id: shop.merchant.id, fixed_amount_cents: 3100 }).orderBy('created_at', 'desc').limit(1);
    expect(await workflowStatus(row.id)).toBe('RUNNING'); // not ended: its checkout exists

    useCheckoutStatementsForTests(service.deps.db);
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(row.id);
    expect(await workflowStatus(row.id)).toBe('RUNNING');
    // The answer's client secret is the checkout's own: the wallet opens it.
    expect((await walletView(service, retry.body)).status).toBe(200);
    expect(await service.deps.db('checkouts').where({ id: row.id })).toHaveLength(1);
  });
});
