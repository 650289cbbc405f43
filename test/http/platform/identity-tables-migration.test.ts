import { randomBytes } from 'node:crypto';
import { createDb, dropDatabase, ensureDatabase, DEFAULT_ADMIN_DATABASE_URL, type Db } from '../../../src/storage/db';

/**
 * The identity tables lost their `merchant_` prefix in a migration. A database filled by the old
 * schema (every identity table with rows, an operator and a merchant's person, their session,
 * invitation, reset link, throttle window and audit entries) keeps every row, key and reference
 * across the rename, and back again when it is rolled back.
 */
const IDENTITY_MIGRATION = '023_identity_tables';
const OLD_TO_NEW: Record<string, string> = {
  merchant_users: 'people',
  merchant_sessions: 'sessions',
  merchant_invitations: 'invitations',
  merchant_password_resets: 'password_resets',
  merchant_sign_in_failures: 'sign_in_failures',
  merchant_audit_log: 'audit_log',
};

let databaseUrl: string;
let db: Db;

beforeAll(async () => {
  const url = new URL(process.env.DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_DATABASE_URL);
  url.pathname = `/identity_rename_${randomBytes(6).toString('hex')}`;
  databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { max: 2 });
  // The schema as it was before the rename.
  for (;;) {
    // The migration source lists each migration as its [name, module] pair.
    const [, pending] = (await db.migrate.list()) as [unknown[], Array<[string, unknown]>];
    const name = pending[0]?.[0];
    if (!name) throw new Error(`${IDENTITY_MIGRATION} is not among the migrations`);
    if (name === IDENTITY_MIGRATION) break;
    await db.migrate.up();
  }
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

async function fillOldSchema(): Promise<void> {
  await db('merchants').insert({ id: 'mer_rename', name: 'Rename Ltd', environment: 'sandbox', settings: JSON.stringify({}), webhook_signing_secret_sealed: 'sealed' });
  await db('merchant_users').insert([
    { id: 'usr_rename', merchant_id: 'mer_rename', email: 'owner@rename.test', role: 'owner', password_hash: 'h1' },
    { id: 'opr_rename', merchant_id: null, email: 'op@rename.test', role: 'operator_admin', password_hash: 'h2', totp_secret_sealed: 's', totp_enabled_at: new Date(), totp_last_step: '42' },
  ]);
  const hash = (n: number) => Buffer.alloc(32, n);
  const later = new Date(Date.now() + 3_600_000);
  await db('merchant_sessions').insert({ token_hash: hash(1), user_id: 'usr_rename', expires_at: later });
  await db('merchant_invitations').insert({ id: 'inv_rename', merchant_id: 'mer_rename', email: 'dev@rename.test', role: 'developer', token_hash: hash(2), expires_at: later, invited_by: 'usr_rename' });
  await db('merchant_password_resets').insert({ token_hash: hash(3), user_id: 'opr_rename', expires_at: later });
  await db('merchant_sign_in_failures').insert({ throttle_key: 'account:op@rename.test', window_started_at: new Date(), failures: 3 });
  await db('merchant_audit_log').insert([
    { id: 'aud_rename1', merchant_id: 'mer_rename', actor: 'usr_rename', action: 'member.invited', target: 'inv_rename', details: JSON.stringify({ role: 'developer' }) },
    { id: 'aud_rename2', merchant_id: null, actor: 'opr_rename', actor_email: 'op@rename.test', action: 'operator.signed_in', target: null, details: JSON.stringify({}) },
  ]);
}

async function counts(names: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of names) out[name] = Number((await db(name).count<Array<{ count: string }>>('* as count'))[0]!.count);
  return out;
}

async function tableExists(name: string): Promise<boolean> {
  return db.schema.hasTable(name);
}

it('renames every identity table, keeping every row, constraint and reference, and rolls back', async () => {
  await fillOldSchema();
  const before = await counts(Object.keys(OLD_TO_NEW));
  expect(Object.values(before).every((n) => n > 0)).toBe(true);

  await db.migrate.up();
  for (const [from, to] of Object.entries(OLD_TO_NEW)) {
    expect(await tableExists(from)).toBe(false);
    expect((await counts([to]))[to]).toBe(before[from]);
  }
  expect(await db('people').where({ id: 'opr_rename' }).first()).toMatchObject({ email: 'op@rename.test', role: 'operator_admin', totp_last_step: 42 });
  expect(await db('audit_log').where({ id: 'aud_rename1' }).first()).toMatchObject({ details: { role: 'developer' }, merchant_id: 'mer_rename' });

  // The constraints came along under their new names: scope, unique email, the session's person.
  await expect(db('people').insert({ id: 'opr_bad', merchant_id: null, email: 'x@rename.test', role: 'owner', password_hash: 'h', totp_secret_sealed: 's' })).rejects.toMatchObject({ constraint: 'people_role_check' });
  await expect(db('people').insert({ id: 'usr_dup', merchant_id: 'mer_rename', email: 'owner@rename.test', role: 'viewer', password_hash: 'h' })).rejects.toMatchObject({ constraint: 'people_email_unique' });
  await db('people').where({ id: 'usr_rename' }).delete();
  expect((await counts(['sessions'])).sessions).toBe(0);
  const leftOver = await db.raw<{ rows: Array<{ name: string }> }>(
    "SELECT conname AS name FROM pg_constraint WHERE conname LIKE 'merchant\\_users%' OR conname LIKE 'merchant\\_sessions%' OR conname LIKE 'merchant\\_invitations%' OR conname LIKE 'merchant\\_audit%' UNION SELECT indexname FROM pg_indexes WHERE indexname LIKE 'merchant\\_users%' OR indexname LIKE 'merchant\\_sessions%' OR indexname LIKE 'merchant\\_audit%' OR indexname LIKE 'merchant\\_password%' OR indexname LIKE 'merchant\\_sign%' OR indexname LIKE 'merchant\\_invitations%'",
  );
  expect(leftOver.rows).toEqual([]);

  await db.migrate.down();
  for (const [from, to] of Object.entries(OLD_TO_NEW)) {
    expect(await tableExists(to)).toBe(false);
    expect(await tableExists(from)).toBe(true);
  }
  expect((await counts(['merchant_users'])).merchant_users).toBe(1);
  expect((await counts(['merchant_audit_log'])).merchant_audit_log).toBe(2);
});
