import type { MerchantUserRow, OperatorUserRow } from './people';
import type { Db } from './db';

/** Inserts a session, and deletes the person's sessions that have expired or were revoked since they would have: the table holds live sessions and few others. */
export async function insertMerchantSession(db: Db, row: { token_hash: Buffer; user_id: string; expires_at: Date }): Promise<void> {
  await db('sessions').where({ user_id: row.user_id }).where('expires_at', '<', db.fn.now()).delete();
  await db('sessions').insert(row);
}

/** The merchant a session acts for, as the sign-in answers it. */
export interface SessionMerchant {
  id: string;
  name: string;
  environment: 'sandbox' | 'production';
}

/**
 * The live (unrevoked, unexpired) session with this token hash, with its person and merchant, in
 * one query. Not merchant-scoped: the session decides the merchant.
 */
export async function findLiveSessionUnscoped(db: Db, tokenHash: Buffer): Promise<{ user: MerchantUserRow; merchant: SessionMerchant } | undefined> {
  const row = await db('sessions as s')
    .join('people as u', 'u.id', 's.user_id')
    .join('merchants as m', 'm.id', 'u.merchant_id')
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', db.fn.now())
    .first<(MerchantUserRow & { merchant_name: string; merchant_environment: SessionMerchant['environment'] }) | undefined>('u.*', 'm.name as merchant_name', 'm.environment as merchant_environment');
  if (!row) return undefined;
  const { merchant_name: name, merchant_environment: environment, ...user } = row;
  return { user, merchant: { id: user.merchant_id, name, environment } };
}

/**
 * The live session with this token hash when its person is one of the operator's (no merchant):
 * a merchant's session never opens the operator dashboard. Not merchant-scoped.
 */
export async function findLiveOperatorSessionUnscoped(db: Db, tokenHash: Buffer): Promise<OperatorUserRow | undefined> {
  return db('sessions as s')
    .join('people as u', 'u.id', 's.user_id')
    .where('s.token_hash', tokenHash)
    .whereNull('u.merchant_id')
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', db.fn.now())
    .first<OperatorUserRow | undefined>('u.*');
}

/** Revokes one session; false when it was not live. */
export async function revokeMerchantSession(db: Db, tokenHash: Buffer): Promise<boolean> {
  return (await db('sessions').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ revoked_at: db.fn.now() })) > 0;
}

/** Revokes every session of a person (a new password), and deletes their expired ones. */
export async function revokeUserSessions(db: Db, userId: string): Promise<void> {
  await db('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  await db('sessions').where({ user_id: userId }).where('expires_at', '<', db.fn.now()).delete();
}
