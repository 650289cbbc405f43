import type { Db } from './db';

/** The contract's geo check reuse window: a check younger than this answers later pings and gates checkouts. */
export const GEO_CHECK_MAX_AGE_MS = 30 * 60 * 1000;

export interface GeoCheckRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  passed: boolean;
  municipality: string | null;
  region: string;
  country: string;
  latitude: number;
  longitude: number;
  checked_at: Date;
}

/** The customer's most recent geo check, whatever its age (latest_geo_check and the checkout gate read it). */
export async function latestGeoCheck(db: Db, merchantId: string, customerId: string): Promise<GeoCheckRow | undefined> {
  return db<GeoCheckRow>('geo_checks')
    .where({ merchant_id: merchantId, customer_id: customerId })
    .orderBy('checked_at', 'desc')
    .first();
}

/**
 * Inside a transaction: one fresh evaluation at a time per customer, so pings that arrive
 * together share one check (the first evaluates, the rest reuse it) rather than each evaluating.
 */
export async function lockCustomerGeoChecks(trx: Db, customerId: string): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('geo_checks'), hashtext(?))`, [customerId]);
}

/** For callers holding a row already (the checkout gate): is it inside the reuse window at `now`? */
export function isFreshGeoCheck(check: Pick<GeoCheckRow, 'checked_at'>, now: Date = new Date()): boolean {
  return now.getTime() - check.checked_at.getTime() < GEO_CHECK_MAX_AGE_MS;
}
