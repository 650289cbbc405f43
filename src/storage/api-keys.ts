import { UnknownCursorError, type Page, type PageRequest } from './pages';
import { announceCredentialsChanged } from './credential-changes';
import type { Db } from './db';
import type { CredentialColumn } from './credential-guard';

export { credentialStillActive, credentialStillActiveSql, isCredentialStillActive, type CredentialColumn, type CredentialGuard } from './credential-guard';
import { withDefaults, type MerchantRow } from './merchants';

export interface ApiKeyRow {
  id: number;
  merchant_id: string;
  key_prefix: string;
  api_key_hash: Buffer;
  client_secret_hash: Buffer;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertApiKey(
  db: Db,
  row: Pick<ApiKeyRow, 'merchant_id' | 'key_prefix' | 'api_key_hash' | 'client_secret_hash'>,
): Promise<ApiKeyRow> {
  const [inserted] = await db<ApiKeyRow>('api_keys').insert(row).returning('*');
  return inserted as ApiKeyRow;
}

/** A merchant as read through one of its active credentials, and the version of its row then. */
export interface CredentialMerchant {
  merchant: MerchantRow;
  /** The stored hash (compared in constant time by the caller). */
  storedHash: Buffer;
  /** The merchant row's xmin: any change to the row (settings, secrets) gives it another. */
  version: string;
}

/** The merchant of an active credential, in one query (key and merchant together). */
export async function findMerchantByActiveCredential(db: Db, column: CredentialColumn, hash: Buffer): Promise<CredentialMerchant | undefined> {
  const row = await db('api_keys as k')
    .join('merchants as m', 'm.id', 'k.merchant_id')
    .where(`k.${column}`, hash)
    .whereNull('k.revoked_at')
    .first('m.*', db.raw('m.xmin::text as row_version'), db.raw('?? as stored_hash', [`k.${column}`]));
  if (!row) return undefined;
  const { row_version: version, stored_hash: storedHash, ...merchant } = row as MerchantRow & { row_version: string; stored_hash: Buffer };
  return { merchant: withDefaults(merchant)!, storedHash, version };
}

/** Active key rows by the hash of a presented credential (the hash is unique and indexed). */
export async function findActiveByApiKeyHash(db: Db, hash: Buffer): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ api_key_hash: hash }).whereNull('revoked_at').first();
}

export async function findActiveByClientSecretHash(db: Db, hash: Buffer): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ client_secret_hash: hash }).whereNull('revoked_at').first();
}

/**
 * A page of the merchant's keys, newest first (ids grow with issue). The cursor is a key's prefix,
 * the only name the API shows for a key; another merchant's prefix is an unknown cursor.
 */
export async function pageApiKeys(db: Db, merchantId: string, page: PageRequest): Promise<Page<ApiKeyRow>> {
  const query = db<ApiKeyRow>('api_keys').where({ merchant_id: merchantId });
  if (page.startingAfter !== undefined) {
    const cursor = await db<ApiKeyRow>('api_keys').where({ merchant_id: merchantId, key_prefix: page.startingAfter }).first('id');
    if (!cursor) throw new UnknownCursorError(page.startingAfter);
    void query.where('id', '<', cursor.id);
  }
  const rows = await query.orderBy('id', 'desc').limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export async function findActiveApiKeyByPrefix(db: Db, merchantId: string, keyPrefix: string): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ merchant_id: merchantId, key_prefix: keyPrefix }).whereNull('revoked_at').first();
}

/** Revokes by prefix, scoped to the merchant; returns the number of keys revoked (0 or 1). */
export async function revokeApiKey(db: Db, merchantId: string, keyPrefix: string): Promise<number> {
  const revoked = await db('api_keys')
    .where({ merchant_id: merchantId, key_prefix: keyPrefix })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  if (revoked) await announceCredentialsChanged(db, merchantId);
  return revoked;
}
