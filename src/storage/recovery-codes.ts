import type { Db } from './db';

/** Replaces the person's recovery codes (hashes) with a new set: every earlier code stops working. Not merchant-scoped: the person is named by their session or link. */
export async function replaceRecoveryCodesUnscoped(db: Db, userId: string, codeHashes: Buffer[]): Promise<void> {
  await db('recovery_codes').where({ user_id: userId }).delete();
  if (codeHashes.length > 0) await db('recovery_codes').insert(codeHashes.map((code_hash) => ({ user_id: userId, code_hash })));
}

/**
 * Spends one of the person's unused recovery codes: marks it used in the claiming statement itself,
 * so a code works once even when sent twice at once. False when it is not an unused code of theirs.
 */
export async function spendRecoveryCodeUnscoped(db: Db, userId: string, codeHash: Buffer): Promise<boolean> {
  return (await db('recovery_codes').where({ user_id: userId, code_hash: codeHash }).whereNull('used_at').update({ used_at: db.fn.now() })) > 0;
}

/** How many of the person's recovery codes are still unused. */
export async function countUnusedRecoveryCodesUnscoped(db: Db, userId: string): Promise<number> {
  const row = await db('recovery_codes').where({ user_id: userId }).whereNull('used_at').count<{ count: string }>('code_hash as count').first();
  return Number(row?.count ?? 0);
}
