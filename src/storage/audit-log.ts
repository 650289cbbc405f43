import type { Db } from './db';

export interface MerchantAuditRow {
  id: string;
  /** Null for the operator's own entries (an operator invited, signed in or removed). */
  merchant_id: string | null;
  actor: string;
  /** The email of an operator actor, kept with the entry: operators are no merchant's team and may be removed later. */
  actor_email: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  /** The client address of the request that made the entry (null for the service's own work and older entries). */
  client_address: string | null;
  created_at: Date;
}

export async function insertAuditEntry(db: Db, row: Omit<MerchantAuditRow, 'created_at'>): Promise<void> {
  await db('audit_log').insert({ ...row, details: JSON.stringify(row.details) });
}
