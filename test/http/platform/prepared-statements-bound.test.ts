import { createDb, dropDatabase, queryPrepared, type Db } from '../../../src/storage/db';
import { createTestDatabase } from '../../support/test-database';

/**
 * queryPrepared (src/storage/db.ts) names at most 64 statement texts per process; past that bound a
 * text runs unnamed. A file of its own, since it fills that process-wide bound: it answers
 * the rows there too, for a raw statement (whose knex answer is pg's result) as for a builder.
 */
let databaseUrl: string;
let db: Db;
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = createDb(databaseUrl, { max: 1 });
});
afterAll(async () => {
  await db?.destroy();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

type N = { n: number };
const rawSelect = (n: number) => db.raw(`SELECT n FROM (VALUES (?::int), (${n})) AS v(n) ORDER BY n`, [0]);

it('answers the rows of a raw statement and of a builder once the bound of named texts is reached', async () => {
  // 64 texts named (and each answered as rows), then two that are not.
  for (let i = 1; i <= 64; i++) expect(await queryPrepared<N>(db, rawSelect(i))).toEqual([{ n: 0 }, { n: i }]);
  const named = (await db.raw<{ rows: Array<{ name: string }> }>('select name from pg_prepared_statements')).rows;
  expect(named).toHaveLength(64);

  expect(await queryPrepared<N>(db, rawSelect(65))).toEqual([{ n: 0 }, { n: 65 }]);
  expect(await queryPrepared<N>(db, db.select(db.raw('66 AS n')))).toEqual([{ n: 66 }]);
  expect((await db.raw<{ rows: unknown[] }>('select name from pg_prepared_statements')).rows).toHaveLength(64);
});
