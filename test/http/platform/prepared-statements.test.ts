import { createDb, queryPrepared, runPreparedSideBySide, type Db } from '../../../src/storage/db';
import { startService, type Service } from '../../support/harness';
import { openShop } from '../../support/fixtures';
import { findMerchantWithVersion } from '../../../src/storage/merchants';

/**
 * queryPrepared (src/storage/db.ts) runs the checkout's INSERT as a named prepared statement. Here
 * against a table of its own on a one-connection pool, so pg_prepared_statements (which lists the
 * session's own statements) shows what that connection holds.
 */
let service: Service;
let db: Db;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
  db = createDb(service.deps.config.databaseUrl, { max: 1 });
  await db.schema.createTable('prepared_probe', (t) => {
    t.increments('id');
    t.text('name').notNullable();
  });
}, 120_000);
afterAll(async () => {
  await db?.schema.dropTableIfExists('prepared_probe');
  await db?.destroy();
  await service?.stop();
});

const insert = (name: string | null) => queryPrepared<{ id: number; name: string; note?: string | null }>(db, db('prepared_probe').insert({ name }).returning('*'));
const prepared = async () => (await db.raw<{ rows: Array<{ name: string; statement: string }> }>('select name, statement from pg_prepared_statements')).rows;

describe('queryPrepared', () => {
  it('prepares the statement once on the connection and answers the rows as knex would', async () => {
    const first = await insert('a');
    const second = await insert('b');
    expect([first[0].name, second[0].name]).toEqual(['a', 'b']);
    expect(second[0].id).toBe(first[0].id + 1);
    const statements = (await prepared()).filter((s) => s.statement.includes('prepared_probe'));
    expect(statements).toHaveLength(1);
    expect(statements[0].name).toMatch(/^q\d+_/);
  });

  it('passes PostgreSQL errors on with their code, and writes nothing', async () => {
    const before = Number((await db('prepared_probe').count<Array<{ count: string }>>('* as count'))[0].count);
    await expect(insert(null)).rejects.toMatchObject({ code: '23502', column: 'name' });
    expect(Number((await db('prepared_probe').count<Array<{ count: string }>>('* as count'))[0].count)).toBe(before);
  });

  it('runs inside a transaction on the transaction itself: a rollback undoes it', async () => {
    await db
      .transaction(async (trx) => {
        const [row] = await queryPrepared<{ id: number }>(trx, trx('prepared_probe').insert({ name: 'in trx' }).returning('*'));
        expect(row.id).toBeGreaterThan(0);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await db('prepared_probe').where({ name: 'in trx' }).first()).toBeUndefined();
  });

  it('survives a migration that changes the returned columns, and prepares anew after it', async () => {
    await insert('before');
    await db.schema.alterTable('prepared_probe', (t) => t.text('note'));
    // The connection's statement now has a stale result type ("cached plan must not change result type").
    const [after] = await insert('after');
    expect(after).toMatchObject({ name: 'after', note: null });
    const [next] = await insert('next');
    expect(next).toMatchObject({ name: 'next', note: null });
    const statements = (await prepared()).filter((s) => s.statement.includes('prepared_probe'));
    // The stale statement and the one prepared under the next generation's name.
    expect(new Set(statements.map((s) => s.name)).size).toBe(2);
  });
});

describe('runPreparedSideBySide', () => {
  it("answers each table's row apart, as a SELECT * of that table gives it, and undefined for a LEFT JOIN that found none", async () => {
    const shop = await openShop(service);
    const merchant = await service.deps.db('merchants').where({ id: shop.merchant.id }).first();
    const customer = await service.deps.db('customers').where({ id: shop.customerId }).first();
    const text = 'SELECT m.*, c.*, p.* FROM merchants m LEFT JOIN customers c ON c.id = $2 LEFT JOIN prepared_probe p ON p.id = -1 WHERE m.id = $1';
    const rows = await runPreparedSideBySide(db, text, [merchant.id, customer.id]);
    expect(rows).toEqual([[merchant, customer, undefined]]);
    // The times come back as the driver parses them, Dates.
    expect(rows[0]![0]!.created_at).toBeInstanceOf(Date);
    expect(await runPreparedSideBySide(db, text, ['mer_none', 'cus_none'])).toEqual([]);
  });

  it('answers a computed column after the rows as a row of its own', async () => {
    const shop = await openShop(service);
    const { version } = (await findMerchantWithVersion(service.deps.db, shop.merchant.id))!;
    const rows = await runPreparedSideBySide(db, 'SELECT m.*, m.xmin::text AS merchant_version FROM merchants m WHERE m.id = $1', [shop.merchant.id]);
    expect(rows.map(([merchant, computed]) => [merchant!.id, computed])).toEqual([[shop.merchant.id, { merchant_version: version }]]);
  });
});
