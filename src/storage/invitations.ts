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
  invited_by: string;
  pending_totp_secret_sealed: string | null;
  created_at: Date;
}

export async function insertMerchantInvitation(db: Db, row: Omit<MerchantInvitationRow, 'created_at' | 'accepted_at' | 'pending_totp_secret_sealed'>): Promise<MerchantInvitationRow> {
  const [inserted] = await db('invitations').insert(row).returning('*');
  return inserted as MerchantInvitationRow;
}

/**
 * The open (unaccepted, unexpired) invitation whose token hashes to `tokenHash`, locked when asked.
 * Not merchant-scoped: the token is the invited person's only credential.
 */
export async function findOpenInvitationByTokenHashUnscoped(db: Db, tokenHash: Buffer, lock = false): Promise<MerchantInvitationRow | undefined> {
  const query = db('invitations').where({ token_hash: tokenHash }).whereNull('accepted_at').where('expires_at', '>', db.fn.now()).first();
  return lock ? query.forUpdate() : query;
}

export async function markInvitationAccepted(db: Db, id: string): Promise<void> {
  await db('invitations').where({ id }).update({ accepted_at: db.fn.now() });
}

export async function setInvitationPendingTotp(db: Db, id: string, sealed: string): Promise<void> {
  await db('invitations').where({ id }).update({ pending_totp_secret_sealed: sealed });
}
