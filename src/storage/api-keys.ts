import { UnknownCursorError, type Page, type PageRequest } from './pages';
import { announceCredentialsChanged } from './credential-changes';
import type { Db } from './db';

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
