import type { Knex } from 'knex';
import type { Db } from './db';

/** The column of `api_keys` a presented credential is found by. */
export type CredentialColumn = 'api_key_hash' | 'client_secret_hash';

/** What a statement checks to act on a credential read earlier (CredentialMerchant) without reading it again first. */
export interface CredentialGuard {
  column: CredentialColumn;
  hash: Buffer;
  merchantId: string;
  version: string;
}

/**
 * A condition for a request's own statement: true while the credential is still active and its
 * merchant row is the version it was read at. Evaluated in the statement's snapshot, it sees every
 * revocation and settings change committed before the statement began.
 */
export function credentialStillActive(db: Db, guard: CredentialGuard): Knex.Raw {
  return db.raw(credentialStillActiveSql(guard.column, { hash: '?', merchantId: '?', version: '?::xid' }), [guard.hash, guard.merchantId, guard.version]);
}

/**
 * The same condition over SQL expressions for the hash, the merchant id and the version (an xid):
 * bound values, or the columns of rows written in one statement, each with a guard of its own.
 */
export function credentialStillActiveSql(column: CredentialColumn, of: { hash: string; merchantId: string; version: string }): string {
  return `EXISTS (SELECT 1 FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.${column} = ${of.hash} AND k.revoked_at IS NULL AND m.id = ${of.merchantId} AND m.xmin = ${of.version})`;
}

/** Whether the guard still holds, as a statement of its own (for answers that read or wrote nothing). */
export async function isCredentialStillActive(db: Db, guard: CredentialGuard): Promise<boolean> {
  const row = await db.first(db.raw('? as active', [credentialStillActive(db, guard)]));
  return Boolean((row as { active: boolean } | undefined)?.active);
}
