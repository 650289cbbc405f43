import { announceCredentialsChanged } from './credential-changes';
import type { Db } from './db';
import type { MerchantSettings } from '../domain/settings';

export interface MerchantRow {
  id: string;
  name: string;
  environment: 'sandbox' | 'production';
  settings: MerchantSettings;
  webhook_signing_secret_sealed: string;
  created_at: Date;
  updated_at: Date;
}

export async function insertMerchant(db: Db, row: Omit<MerchantRow, 'created_at' | 'updated_at'>): Promise<MerchantRow> {
  const [inserted] = await db<MerchantRow>('merchants')
    .insert({ ...row, settings: JSON.stringify(row.settings) as unknown as MerchantSettings })
    .returning('*');
  return inserted as MerchantRow;
}

export async function findMerchant(db: Db, id: string): Promise<MerchantRow | undefined> {
  return db<MerchantRow>('merchants').where({ id }).first();
}

export async function updateMerchantSettings(db: Db, id: string, settings: MerchantSettings): Promise<MerchantRow | undefined> {
  const [row] = await db<MerchantRow>('merchants')
    .where({ id })
    .update({ settings: JSON.stringify(settings) as unknown as MerchantSettings, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  // Authentication caches the merchant row with its credentials: it must see the new settings.
  if (row) await announceCredentialsChanged(db, id);
  return row as MerchantRow | undefined;
}
