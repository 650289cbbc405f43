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
 * Claims an open (unused, unexpired) reset link: marks it used in the claiming statement itself, so
 * a link works once even when sent twice at once. Not merchant-scoped: the token is the credential.
 */
export async function claimPasswordResetUnscoped(db: Db, tokenHash: Buffer): Promise<{ user_id: string } | undefined> {
  const rows = await db('password_resets')
    .where({ token_hash: tokenHash })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning('user_id');
  return rows[0] as { user_id: string } | undefined;
}

/** The person of an open reset link, without claiming it (the reset page enrols an authenticator first). */
export async function findOpenPasswordResetUnscoped(db: Db, tokenHash: Buffer): Promise<{ user_id: string } | undefined> {
  return db('password_resets').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', db.fn.now()).first('user_id');
}

/** How many reset links the person was sent within the last hour (used or not). */
async function countRecentPasswordResets(db: Db, userId: string): Promise<number> {
  const row = await db('password_resets').where({ user_id: userId }).where('created_at', '>', db.raw("now() - interval '1 hour'")).count<{ count: string }>('token_hash as count').first();
  return Number(row?.count ?? 0);
}
