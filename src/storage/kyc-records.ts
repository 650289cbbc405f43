import type { Db } from './db';

export interface KycRecordRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone_number: string | null;
  date_of_birth: string;
  address_line_1: string;
  address_line_2: string | null;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  provider: string;
  verified: boolean;
  /** Sealer.seal output; the plain value is never read back by the API. */
  last_four_ssn_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Everything a submission sets: the whole record is replaced on update. */
export type KycRecordWritable = Omit<KycRecordRow, 'id' | 'merchant_id' | 'customer_id' | 'created_at' | 'updated_at'>;

/**
 * Serialises KYC writes for one customer until the transaction ends, so two concurrent
 * submissions from the same provider cannot both decide "no record yet" and create two.
 * An advisory lock rather than a row lock: it does not block unrelated customer updates.
 */
export async function lockKycWrites(trx: Db, customerId: string): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('kyc_records'), hashtext(?))`, [customerId]);
}

export async function findKycRecordByProvider(db: Db, merchantId: string, customerId: string, provider: string): Promise<KycRecordRow | undefined> {
  return db<KycRecordRow>('kyc_records')
    .where({ merchant_id: merchantId, customer_id: customerId, provider })
    .orderBy('updated_at', 'desc')
    .first();
}

/**
 * updated_at is the wall clock at the write (clock_timestamp), not the transaction's start
 * (now()): under lockKycWrites, the record written last then always has the latest updated_at.
 */
const writtenAt = (db: Db) => db.raw('clock_timestamp()') as unknown as Date;

export async function insertKycRecord(db: Db, row: KycRecordWritable & { id: string; merchant_id: string; customer_id: string }): Promise<KycRecordRow> {
  const [inserted] = await db<KycRecordRow>('kyc_records').insert({ ...row, updated_at: writtenAt(db) }).returning('*');
  return inserted as KycRecordRow;
}

export async function replaceKycRecord(db: Db, merchantId: string, id: string, changes: KycRecordWritable): Promise<KycRecordRow> {
  const [row] = await db<KycRecordRow>('kyc_records')
    .where({ merchant_id: merchantId, id })
    .update({ ...changes, updated_at: writtenAt(db) })
    .returning('*');
  return row as KycRecordRow;
}

/**
 * The customer's most recent KYC record (by updated_at: an update makes a record the latest),
 * which is the one hosted checkout reads. A newer `verified: false` record therefore sends the
 * customer back through verification even when an older record was verified.
 */
export async function latestKycRecord(db: Db, merchantId: string, customerId: string): Promise<KycRecordRow | undefined> {
  return db<KycRecordRow>('kyc_records')
    .where({ merchant_id: merchantId, customer_id: customerId })
    .orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'created_at', order: 'desc' }])
    .first();
}
