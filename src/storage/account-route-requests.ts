import type { Db } from './db';
import { reserveAttempt, type FailureTable, type Reservation } from './failure-windows';

const TABLE: FailureTable = { table: 'account_route_requests', keyColumn: 'throttle_key', countColumn: 'requests' };

/**
 * Counts one request to an unauthenticated account route against its client address's window, or
 * refuses it when the address made `max` already (src/storage/failure-windows.ts). Not
 * merchant-scoped: these requests precede any session.
 */
export function reserveAccountRouteRequest(db: Db, clientAddress: string, windowSeconds: number, max: number): Promise<Reservation> {
  return reserveAttempt(db, TABLE, clientAddress, windowSeconds, max);
}
