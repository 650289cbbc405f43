import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_ADMIN_DATABASE_URL, plainDatabaseName } from '../../src/storage/db';

/**
 * Databases of a test run: the global setup migrates one template (TEST_TEMPLATE_DATABASE_URL) and
 * every service, or a test without one, copies it. A copy is a file copy, far faster than migrating,
 * and keeps each file's rows away from every other file's sweepers.
 * Nothing may connect to the template after setup: CREATE DATABASE ... TEMPLATE refuses a template
 * someone is connected to.
 */
function adminUrl(): string {
  return process.env.DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_DATABASE_URL;
}

async function onAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new migrated database of this run, copied from the template; the caller drops it (dropDatabase). */
export async function createTestDatabase(): Promise<string> {
  const template = process.env.TEST_TEMPLATE_DATABASE_URL;
  if (!template) throw new Error('TEST_TEMPLATE_DATABASE_URL is not set: run the tests with `npm test`');
  const templateName = plainDatabaseName(template);
  const url = new URL(adminUrl());
  url.pathname = `/${templateName.replace(/_tpl_[0-9a-f]+$/, '')}_${randomBytes(6).toString('hex')}`;
  const databaseUrl = url.toString();
  await onAdmin((client) => client.query(`CREATE DATABASE "${plainDatabaseName(databaseUrl)}" TEMPLATE "${templateName}"`));
  return databaseUrl;
}

/** Drops every database whose name starts with the prefix (the run's copies a crashed file left behind). */
export async function dropTestDatabasesWithPrefix(prefix: string): Promise<void> {
  if (!/^[A-Za-z0-9_]+$/.test(prefix)) throw new Error(`Refusing an unusual prefix: ${prefix}`);
  await onAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [prefix]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}
