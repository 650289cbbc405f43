import knex, { type Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrationSource } from './migrations';

// DATE columns stay 'YYYY-MM-DD' strings: turning them into JS Dates would shift them by the
// process's time zone, and the contract speaks of plain dates.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
// COUNT(*) and bigserial ids fit comfortably in a JS number here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

export function createDb(databaseUrl: string, pool: { min?: number; max?: number } = {}): Db {
  return knex({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}

/** Creates the database named in the URL when it does not exist yet (first start on a machine). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`Refusing to create database with unusual name: ${name}`);
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

/** Postgres not_null_violation, with the column that refused the NULL as `table.column`. */
export function notNullViolation(error: unknown): string | null {
  const e = error as { code?: string; table?: string; column?: string };
  return e && e.code === '23502' ? `${e.table ?? 'unknown'}.${e.column ?? 'unknown'}` : null;
}
