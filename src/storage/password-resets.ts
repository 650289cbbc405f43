import type { Db } from './db';

/**
 * Inserts a reset link unless the person was sent `maxPerHour` within the last hour; answers whether
 * it did. Call it in a transaction: a lock per person, held to the commit, orders concurrent requests
 * so the count each reads includes every link committed before it, and a burst sends no more.
 */
export async function insertPasswordResetWithinLimit(trx: Db, row: { token_hash: Buffer; user_id: string; expires_at: Date }, maxPerHour: number): Promise<boolean> {
  await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended('password_resets:' || ?, 0))", [row.user_id]);
  if ((await countRecentPasswordResets(trx, row.user_id)) >= maxPerHour) return false;
  await trx('password_resets').insert(row);
  return true;
}

/**
 * What a reset link is for: `password`, asked by the person (it may not replace an enrolled
 * authenticator), or `authenticator_recovery`, started by an owner or an operator_admin for a
 * person who lost theirs (it enrols a new one).
 */
export type ResetPurpose = 'password' | 'authenticator_recovery';

export interface OpenReset {
  user_id: string;
  purpose: ResetPurpose;
}

export async function insertPasswordReset(db: Db, row: { token_hash: Buffer; user_id: string; expires_at: Date; purpose?: ResetPurpose; started_by?: string }): Promise<void> {
  await db('password_resets').insert(row);
}

/**
 * Claims an open (unused, unexpired) reset link: marks it used in the claiming statement itself, so
 * a link works once even when sent twice at once. Not merchant-scoped: the token is the credential.
 */
export async function claimPasswordResetUnscoped(db: Db, tokenHash: Buffer): Promise<OpenReset | undefined> {
  const rows = await db('password_resets')
    .where({ token_hash: tokenHash })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning(['user_id', 'purpose']);
  return rows[0] as OpenReset | undefined;
}

/** The person and purpose of an open reset link, without claiming it (the reset page enrols an authenticator first). */
export async function findOpenPasswordResetUnscoped(db: Db, tokenHash: Buffer): Promise<OpenReset | undefined> {
  return db('password_resets').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', db.fn.now()).first('user_id', 'purpose');
}

/** Ends every open reset link of the person (one was used, or a recovery replaces them). Not merchant-scoped. */
export async function endPasswordResetsUnscoped(db: Db, userId: string): Promise<void> {
  await db('password_resets').where({ user_id: userId }).whereNull('used_at').update({ used_at: db.fn.now() });
}

/** How many reset links the person was sent within the last hour (used or not). */
async function countRecentPasswordResets(db: Db, userId: string): Promise<number> {
  const row = await db('password_resets').where({ user_id: userId }).where('created_at', '>', db.raw("now() - interval '1 hour'")).count<{ count: string }>('token_hash as count').first();
  return Number(row?.count ?? 0);
}
