import type { MerchantRole } from '../identity/merchant-roles';
import type { OperatorRole } from '../identity/operator-roles';
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
  /** The last authenticator time step accepted (a code is used once); null before the first. */
  totp_last_step: string | null;
  created_at: Date;
}

/**
 * One of the operator's people: the same table without a merchant, with an operator role, and
 * always with an authenticator (the table's checks hold both).
 */
export type OperatorUserRow = Omit<MerchantUserRow, 'merchant_id' | 'role' | 'totp_secret_sealed'> & { merchant_id: null; role: OperatorRole; totp_secret_sealed: string };

/** Anyone who signs in: a merchant's person or the operator's. */
export type AccountRow = MerchantUserRow | OperatorUserRow;
export const isOperator = (account: AccountRow): account is OperatorUserRow => account.merchant_id === null;

/** The email is already a person's (of any merchant): one person, one account. */
export class EmailTakenError extends Error {
  constructor(readonly email: string) {
    super(`email ${email} is taken`);
  }
}

type NewAccount<Row extends AccountRow> = Omit<Row, 'created_at' | 'totp_enabled_at' | 'pending_totp_secret_sealed' | 'totp_last_step'> & { totp_enabled_at?: Date | null; totp_last_step?: number | null };

/** Inserts a person (a merchant's or the operator's); an email that already has an account is EmailTakenError. */
export async function insertAccount<Row extends AccountRow>(db: Db, row: NewAccount<Row>): Promise<Row> {
  const inserted = await db('people').insert(row).onConflict('email').ignore().returning('*');
  if (inserted.length === 0) throw new EmailTakenError(row.email);
  return inserted[0] as Row;
}

/** The merchant sign-in looks a merchant's person up by email alone (the email names the merchant). Not merchant-scoped; never an operator. */
export async function findMerchantUserByEmailUnscoped(db: Db, email: string): Promise<MerchantUserRow | undefined> {
  return db('people').where({ email }).whereNotNull('merchant_id').first();
}

/** The operator dashboard's sign-in: one of the operator's people by email. Not merchant-scoped (operators have no merchant). */
export async function findOperatorByEmailUnscoped(db: Db, email: string): Promise<OperatorUserRow | undefined> {
  return db('people').where({ email }).whereNull('merchant_id').first();
}

/** Anyone by email, merchant's or operator's: one email, one account, whoever invites it; password resets serve both. Not merchant-scoped. */
export async function findAccountByEmailUnscoped(db: Db, email: string): Promise<AccountRow | undefined> {
  return db('people').where({ email }).first();
}

/** Anyone by id (a reset link or an enrolment names the person, whatever their scope). Not merchant-scoped. */
export async function findAccountByIdUnscoped(db: Db, id: string): Promise<AccountRow | undefined> {
  return db('people').where({ id }).first();
}

/** People by id (an invitation's inviters), whatever their scope: the caller's rows were scoped already. Not merchant-scoped. */
export async function findAccountsByIdsUnscoped(db: Db, ids: string[]): Promise<Map<string, AccountRow>> {
  const wanted = [...new Set(ids)].filter((id) => id !== 'admin');
  const rows: AccountRow[] = wanted.length ? await db('people').whereIn('id', wanted) : [];
  return new Map(rows.map((row) => [row.id, row]));
}

/** The operator's people, oldest first. Not merchant-scoped. */

/** Removes one of the operator's people; their sessions and reset links go with them (ON DELETE CASCADE). */
export async function deleteOperatorUnscoped(db: Db, id: string): Promise<OperatorUserRow | undefined> {
  const rows = await db('people').where({ id }).whereNull('merchant_id').delete().returning('*');
  return rows[0] as OperatorUserRow | undefined;
}

/** Changes the role of one of the operator's people; their sessions take it with their next call. */
export async function updateOperatorRoleUnscoped(db: Db, id: string, role: OperatorRole): Promise<OperatorUserRow | undefined> {
  const rows = await db('people').where({ id }).whereNull('merchant_id').update({ role }).returning('*');
  return rows[0] as OperatorUserRow | undefined;
}

/**
 * Spends an authenticator time step: moves the person's last accepted step forward to `step` in
 * the claiming statement itself, so a code (or an older one) accepted once is refused afterwards,
 * even when the same code is sent twice at once. False when the step is not past the last.
 */
export async function claimTotpStepUnscoped(db: Db, id: string, step: number): Promise<boolean> {
  const updated = await db('people')
    .where({ id })
    .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step });
  return updated > 0;
}

export async function findMerchantUser(db: Db, merchantId: string, id: string, lock = false): Promise<MerchantUserRow | undefined> {
  const query = db('people').where({ merchant_id: merchantId, id }).first();
  return lock ? query.forUpdate() : query;
}

/** The merchant's people among `ids` (a page's actors); ids of removed people or of others are left out. */
export async function findMerchantUsersByIds(db: Db, merchantId: string, ids: string[]): Promise<MerchantUserRow[]> {
  if (ids.length === 0) return [];
  return db('people').where({ merchant_id: merchantId }).whereIn('id', [...new Set(ids)]);
}

/**
 * Locks the merchant's owners (in id order, so two changes of the team queue rather than deadlock)
 * and answers their ids: a change that could leave no owner counts them under the lock.
 */
export async function lockMerchantOwners(db: Db, merchantId: string): Promise<string[]> {
  const rows = await db('people').where({ merchant_id: merchantId, role: 'owner' }).orderBy('id').forUpdate().select<Array<{ id: string }>>('id');
  return rows.map((row) => row.id);
}

export async function updateMerchantUser(db: Db, merchantId: string, id: string, changes: Partial<Pick<MerchantUserRow, 'role'>>): Promise<MerchantUserRow | undefined> {
  const rows = await db('people').where({ merchant_id: merchantId, id }).update(changes).returning('*');
  return rows[0] as MerchantUserRow | undefined;
}

/** A person's own credentials (password, authenticator), whatever their scope: the person is named by a link or a session. Not merchant-scoped. */
export async function updateAccountCredentialsUnscoped(
  db: Db,
  id: string,
  changes: Partial<Pick<MerchantUserRow, 'password_hash' | 'totp_secret_sealed' | 'totp_enabled_at' | 'pending_totp_secret_sealed'>>,
): Promise<AccountRow | undefined> {
  const rows = await db('people').where({ id }).update(changes).returning('*');
  return rows[0] as AccountRow | undefined;
}

/** Deletes the person; their sessions and reset links go with them (ON DELETE CASCADE). */
export async function deleteMerchantUser(db: Db, merchantId: string, id: string): Promise<boolean> {
  return (await db('people').where({ merchant_id: merchantId, id }).delete()) > 0;
}
