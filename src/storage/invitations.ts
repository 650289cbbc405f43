import type { Knex } from 'knex';
import type { MerchantRole } from '../identity/merchant-roles';
import type { OperatorRole } from '../identity/operator-roles';
import type { Db } from './db';

/** An invitation to a merchant (merchant_id and a merchant role) or to the operator's people (no merchant, an operator role). */
export interface MerchantInvitationRow {
  id: string;
  merchant_id: string | null;
  email: string;
  role: MerchantRole | OperatorRole;
  token_hash: Buffer;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  /** Who invited: a person's id (usr_ or opr_) or `admin` (the admin token). */
  invited_by: string;
  pending_totp_secret_sealed: string | null;
  created_at: Date;
}

export async function insertMerchantInvitation(db: Db, row: Omit<MerchantInvitationRow, 'created_at' | 'accepted_at' | 'revoked_at' | 'pending_totp_secret_sealed'>): Promise<MerchantInvitationRow> {
  const [inserted] = await db('invitations').insert(row).returning('*');
  return inserted as MerchantInvitationRow;
}

/** Not accepted, not revoked, not expired: the only invitations a link can use. */
function open(query: Knex.QueryBuilder, db: Db): Knex.QueryBuilder {
  return query.whereNull('accepted_at').whereNull('revoked_at').where('expires_at', '>', db.fn.now());
}

/**
 * The open invitation whose token hashes to `tokenHash`, locked when asked.
 * Not merchant-scoped: the token is the invited person's only credential.
 */
export async function findOpenInvitationByTokenHashUnscoped(db: Db, tokenHash: Buffer, lock = false): Promise<MerchantInvitationRow | undefined> {
  const query = open(db('invitations').where({ token_hash: tokenHash }), db).first();
  return lock ? query.forUpdate() : query;
}

export async function markInvitationAccepted(db: Db, id: string): Promise<void> {
  await db('invitations').where({ id }).update({ accepted_at: db.fn.now() });
}

export async function setInvitationPendingTotp(db: Db, id: string, sealed: string): Promise<void> {
  await db('invitations').where({ id }).update({ pending_totp_secret_sealed: sealed });
}

/** Revokes the open invitation `id` of a merchant (or, with null, of the operator's people); undefined when it is not open there. */
export async function revokeOpenInvitation(db: Db, merchantId: string | null, id: string): Promise<MerchantInvitationRow | undefined> {
  const rows = await open(db('invitations').where({ id, merchant_id: merchantId }), db).update({ revoked_at: db.fn.now() }).returning('*');
  return rows[0] as MerchantInvitationRow | undefined;
}

/** Revokes the open invitations of `email` in one scope (a merchant's, or the operator's with null): a new one replaces them. */
export async function revokeOpenInvitationsOfEmail(db: Db, merchantId: string | null, email: string): Promise<string[]> {
  const rows = await open(db('invitations').where({ merchant_id: merchantId }).whereRaw('lower(email) = lower(?)', [email]), db).update({ revoked_at: db.fn.now() }).returning('id');
  return rows.map((r: { id: string }) => r.id);
}

/**
 * Revokes the open invitations a person sent, within the scopes given: `merchantInvitations` for
 * those to merchants, `operatorInvitations` for those to the operator's people. Not merchant-scoped:
 * an operator may have invited people of several merchants.
 */
export async function revokeOpenInvitationsOfInviterUnscoped(db: Db, inviter: string, scopes: { merchantInvitations: boolean; operatorInvitations: boolean }): Promise<string[]> {
  if (!scopes.merchantInvitations && !scopes.operatorInvitations) return [];
  const query = open(db('invitations').where({ invited_by: inviter }), db);
  if (!scopes.merchantInvitations) query.whereNull('merchant_id');
  if (!scopes.operatorInvitations) query.whereNotNull('merchant_id');
  const rows = await query.update({ revoked_at: db.fn.now() }).returning('id');
  return rows.map((r: { id: string }) => r.id);
}
