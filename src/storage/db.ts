import knex, { type Knex } from 'knex';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_DATABASE_ACQUIRE_TIMEOUT_MS } from '../config';
import { migrationSource } from './migrations';

// DATE columns stay 'YYYY-MM-DD' strings: turning them into JS Dates would shift them by the
// process's time zone, and the contract speaks of plain dates.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
// COUNT(*) and bigserial ids fit comfortably in a JS number here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

export function createDb(databaseUrl: string, pool: { min?: number; max?: number; acquireTimeoutMs?: number } = {}): Db {
  return knex({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    acquireConnectionTimeout: pool.acquireTimeoutMs ?? DEFAULT_DATABASE_ACQUIRE_TIMEOUT_MS,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

/** Resolves once the database answers a query. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('SELECT 1');
}

/** Statement names by SQL text; bounded, so a text that varied by input could not grow it (or pg's per-connection cache) for ever. */
const preparedNames = new Map<string, string>();
const MAX_PREPARED_TEXTS = 64;
const CACHED_PLAN_CHANGED = '0A000';
let preparedGeneration = 0;

/** A statement already in PostgreSQL's form: `$1`… placeholders in its text, and their values in order. */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
}

/**
 * Runs `query` (a query builder, a raw statement, or a statement in PostgreSQL's form) as a named
 * prepared statement (see runPrepared). Answers the rows, as knex does for a query with
 * `returning` (and for a raw statement, its result's rows).
 */
export async function queryPrepared<Row>(db: Db, query: Knex.QueryBuilder | Knex.Raw | NativeStatement): Promise<Row[]> {
  const { sql, bindings } = 'toSQL' in query ? query.toSQL().toNative() : query;
  return runPrepared<Row>(db, sql, bindings as readonly unknown[]);
}

/**
 * Runs a statement (`text` with $1, $2, ... placeholders) as a named prepared statement: each
 * pooled connection has PostgreSQL parse and plan its text once, not on every call as knex's
 * unnamed statements are, and no query builder runs per call. For the statements of the hottest
 * paths (a checkout's INSERT, a payment attempt's reads and writes), where that work is a
 * measurable share of each request's CPU. The name is derived from the text, so a text that
 * differs (another set of columns) is another statement; past the bound a text runs unnamed.
 * Inside a transaction it runs on the transaction's connection. Listeners of the pool's `query`
 * event see it as they see knex's own queries.
 */
export async function runPrepared<Row>(db: Db, text: string, values: readonly unknown[]): Promise<Row[]> {
  return (await sendPrepared<Row & pg.QueryResultRow>(db, text, values)).rows;
}

/**
 * Runs a prepared statement (as runPrepared) that selects several tables' rows side by side
 * (`SELECT a.*, b.*, … FROM … LEFT JOIN …`) and answers, for each result row, each table's row
 * apart: its columns are those the table contributed (told apart by each field's table), parsed
 * as the driver parses any row, or undefined where a LEFT JOIN found none (every column null).
 * One statement instead of one per table, with each row as its own SELECT * would give it.
 */
export async function runPreparedSideBySide(db: Db, text: string, values: readonly unknown[]): Promise<Array<Array<Record<string, unknown> | undefined>>> {
  const result = await sendPrepared<unknown[]>(db, text, values, 'array');
  const groups: Array<{ start: number; end: number }> = [];
  result.fields.forEach((field, i) => {
    const last = groups[groups.length - 1];
    if (last && result.fields[last.start]!.tableID === field.tableID) last.end = i + 1;
    else groups.push({ start: i, end: i + 1 });
  });
  return (result.rows as unknown[][]).map((row) =>
    groups.map(({ start, end }) => {
      const values = row.slice(start, end);
      if (values.every((value) => value === null)) return undefined;
      return Object.fromEntries(result.fields.slice(start, end).map((field, i) => [field.name, values[i]]));
    }),
  );
}

async function sendPrepared<Row>(db: Db, text: string, values: readonly unknown[], rowMode?: 'array'): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
  const name = preparedNames.get(text) ?? (preparedNames.size < MAX_PREPARED_TEXTS ? nameFor(text) : undefined);
  // A transaction's client hands out the transaction's own connection, and releasing it is a no-op.
  const connection = (await db.client.acquireConnection()) as pg.Client;
  const mode = rowMode ? { rowMode } : {};
  try {
    db.client.emit('query', { sql: text, bindings: values, method: 'raw' });
    return await connection.query<Row & pg.QueryResultRow>(name === undefined ? { text, values: values as unknown[], ...mode } : { name, text, values: values as unknown[], ...mode });
  } catch (error) {
    if (name === undefined || (error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error;
    // "cached plan must not change result type": a migration changed the table since this
    // connection prepared the statement (`returning *` over a new column), and a stale statement
    // stays stale, so every text is prepared under a new name from now on. Nothing ran: on the
    // pool it runs again unprepared; in a transaction, which the error aborted, the caller retries.
    preparedGeneration += 1;
    preparedNames.clear();
    if (db.isTransaction) throw error;
    return await connection.query<Row & pg.QueryResultRow>({ text, values: values as unknown[], ...mode });
  } finally {
    await db.client.releaseConnection(connection);
  }
}

function nameFor(sql: string): string {
  const name = `q${preparedGeneration}_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
  preparedNames.set(sql, name);
  return name;
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}

/** The database a URL names, refused unless plain (letters, digits, _), since it is quoted into CREATE DATABASE. */
export function plainDatabaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`Refusing to create database with unusual name: ${name}`);
  return name;
}

/** Creates the database named in the URL when it does not exist yet (first start on a machine). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const name = plainDatabaseName(databaseUrl);
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } catch (error) {
    // Two processes starting at once may race to create it; the loser sees duplicate_database.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The server's maintenance database, where test and benchmark runs create databases of their own. */
export const DEFAULT_ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A database of its own for one test or benchmark run, migrated: `<prefix>_<random>` on the
 * server of `adminUrl`, so two runs never collide. A failed migration drops it again; otherwise
 * the caller drops it (dropDatabase) when the run ends. Returns its URL.
 */
export async function createScratchDatabase(prefix: string, adminUrl = process.env.DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_DATABASE_URL): Promise<string> {
  const url = new URL(adminUrl);
  url.pathname = `/${prefix}_${randomBytes(6).toString('hex')}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl);
  try {
    await migrateLatest(db);
  } catch (error) {
    await db.destroy();
    await dropDatabase(databaseUrl);
    throw error;
  }
  await db.destroy();
  return databaseUrl;
}

/** Postgres unique_violation, with the constraint that fired (storage turns it into an API error). */
export function uniqueViolation(error: unknown): string | null {
  const e = error as { code?: string; constraint?: string };
  return e && e.code === '23505' ? (e.constraint ?? 'unknown') : null;
}
