import type { MerchantRole } from '../domain/merchant-roles';
import type { Db } from './db';

export interface MerchantUserRow {
  id: string;
  merchant_id: string;
  email: string;
  role: MerchantRole;
  password_hash: string;
  totp_secret_sealed: string | null;
  totp_enabled_at: Date | null;
  pending_totp_secret_sealed: string | null;
  created_at: Date;
}

/** The email is already a person's (of any merchant): one person, one account. */
export class EmailTakenError extends Error {
  constructor(readonly email: string) {
    super(`email ${email} is taken`);
  }
}

export async function insertMerchantUser(db: Db, row: Omit<MerchantUserRow, 'created_at' | 'totp_enabled_at' | 'pending_totp_secret_sealed'> & { totp_enabled_at?: Date | null }): Promise<MerchantUserRow> {
  const inserted = await db('merchant_users').insert(row).onConflict('email').ignore().returning('*');
  if (inserted.length === 0) throw new EmailTakenError(row.email);
  return inserted[0] as MerchantUserRow;
}

/** Sign-in and password resets look a person up by email alone (the email names the merchant). Not merchant-scoped. */
export async function findMerchantUserByEmailUnscoped(db: Db, email: string): Promise<MerchantUserRow | undefined> {
  return db('merchant_users').where({ email }).first();
}

export async function findMerchantUserByIdUnscoped(db: Db, id: string): Promise<MerchantUserRow | undefined> {
  return db('merchant_users').where({ id }).first();
}

export async function findMerchantUser(db: Db, merchantId: string, id: string, lock = false): Promise<MerchantUserRow | undefined> {
  const query = db('merchant_users').where({ merchant_id: merchantId, id }).first();
  return lock ? query.forUpdate() : query;
}

export async function listMerchantUsers(db: Db, merchantId: string): Promise<MerchantUserRow[]> {
  return db('merchant_users').where({ merchant_id: merchantId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/**
 * Locks the merchant's owners (in id order, so two changes of the team queue rather than deadlock)
 * and answers their ids: a change that could leave no owner counts them under the lock.
 */
export async function lockMerchantOwners(db: Db, merchantId: string): Promise<string[]> {
  const rows = await db('merchant_users').where({ merchant_id: merchantId, role: 'owner' }).orderBy('id').forUpdate().select<Array<{ id: string }>>('id');
  return rows.map((row) => row.id);
}

export async function updateMerchantUser(
  db: Db,
  merchantId: string,
  id: string,
  changes: Partial<Pick<MerchantUserRow, 'role' | 'password_hash' | 'totp_secret_sealed' | 'totp_enabled_at' | 'pending_totp_secret_sealed'>>,
): Promise<MerchantUserRow | undefined> {
  const rows = await db('merchant_users').where({ merchant_id: merchantId, id }).update(changes).returning('*');
  return rows[0] as MerchantUserRow | undefined;
}

/** Deletes the person; their sessions and reset links go with them (ON DELETE CASCADE). */
export async function deleteMerchantUser(db: Db, merchantId: string, id: string): Promise<boolean> {
  return (await db('merchant_users').where({ merchant_id: merchantId, id }).delete()) > 0;
}
