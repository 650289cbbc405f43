import type { Db } from './db';

export interface MerchantAuditRow {
  id: string;
  merchant_id: string;
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export async function insertAuditEntry(db: Db, row: Omit<MerchantAuditRow, 'created_at'>): Promise<void> {
  await db('merchant_audit_log').insert({ ...row, details: JSON.stringify(row.details) });
}
