import type { Db } from './db';
import { countFailure, currentFailures, type FailureTable, type WindowedFailures } from './failure-windows';

/** A client address's wrong admin tokens in its current window, and the seconds until that window passes. */
export type AdminTokenFailures = WindowedFailures;

const TABLE: FailureTable = { table: 'admin_token_failures', keyColumn: 'client_address', countColumn: 'failures' };

/**
 * Counts one wrong admin token from the address (src/storage/failure-windows.ts). Not
 * merchant-scoped: the admin token is the operator's. Failures are few, since the throttle refuses
 * an address over its limit before counting more.
 */
export function recordAdminTokenFailure(db: Db, clientAddress: string, windowSeconds: number): Promise<AdminTokenFailures> {
  return countFailure(db, TABLE, clientAddress, windowSeconds);
}

/** The address's wrong admin tokens in its current window, or null when it has none (one primary-key read). */
export async function currentAdminTokenFailures(db: Db, clientAddress: string, windowSeconds: number): Promise<AdminTokenFailures | null> {
  return (await currentFailures(db, TABLE, [clientAddress], windowSeconds)).get(clientAddress) ?? null;
}
