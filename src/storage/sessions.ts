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
export async function findLiveSessionUnscoped(db: Db, tokenHash: Buffer, idleSeconds: number): Promise<{ user: MerchantUserRow; merchant: SessionMerchant; lastSeenAt: Date } | undefined> {
  const row = await db('sessions as s')
    .join('people as u', 'u.id', 's.user_id')
    .join('merchants as m', 'm.id', 'u.merchant_id')
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', db.fn.now())
    .where('s.last_seen_at', '>', db.raw("now() - make_interval(secs => ?)", [idleSeconds]))
    .first<(MerchantUserRow & { merchant_name: string; merchant_environment: SessionMerchant['environment']; last_seen_at: Date }) | undefined>(
      'u.*',
      'm.name as merchant_name',
      'm.environment as merchant_environment',
      's.last_seen_at as last_seen_at',
    );
  if (!row) return undefined;
  const { merchant_name: name, merchant_environment: environment, last_seen_at: lastSeenAt, ...user } = row;
  return { user, merchant: { id: user.merchant_id, name, environment }, lastSeenAt };
}

/**
 * The live session with this token hash when its person is one of the operator's (no merchant):
 * a merchant's session never opens the operator dashboard. Not merchant-scoped.
 */
export async function findLiveOperatorSessionUnscoped(db: Db, tokenHash: Buffer, idleSeconds: number): Promise<{ user: OperatorUserRow; lastSeenAt: Date } | undefined> {
  const row = await db('sessions as s')
    .join('people as u', 'u.id', 's.user_id')
    .where('s.token_hash', tokenHash)
    .whereNull('u.merchant_id')
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', db.fn.now())
    .where('s.last_seen_at', '>', db.raw("now() - make_interval(secs => ?)", [idleSeconds]))
    .first<(OperatorUserRow & { last_seen_at: Date }) | undefined>('u.*', 's.last_seen_at as last_seen_at');
  if (!row) return undefined;
  const { last_seen_at: lastSeenAt, ...user } = row;
  return { user, lastSeenAt };
}

/** Marks a session used now (it stays alive past its idle timeout from here); false when it is no longer live. */
export async function touchSessionUnscoped(db: Db, tokenHash: Buffer): Promise<boolean> {
  return (await db('sessions').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ last_seen_at: db.fn.now() })) > 0;
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
