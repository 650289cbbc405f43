import type { Db } from './db';
import { releaseAttempt, reserveAttempt, type FailureTable, type Reservation } from './failure-windows';

export type SignInReservation = Reservation;

const TABLE: FailureTable = { table: 'sign_in_failures', keyColumn: 'throttle_key', countColumn: 'failures' };

/**
 * Reserves one sign-in attempt against a throttle key (`account:<email>` or `address:<client
 * address>`; src/storage/failure-windows.ts) before its password is checked: counted as a failure
 * unless released. Not merchant-scoped: sign-in precedes any merchant.
 */
export function reserveSignInAttempt(db: Db, throttleKey: string, windowSeconds: number, max: number): Promise<SignInReservation> {
  return reserveAttempt(db, TABLE, throttleKey, windowSeconds, max);
}

/** Gives a reserved attempt back: it did not fail. */
export function releaseSignInAttempt(db: Db, throttleKey: string): Promise<void> {
  return releaseAttempt(db, TABLE, throttleKey);
}

/** A successful sign-in forgets the account's failures (not the address's). */
export async function clearSignInFailures(db: Db, throttleKey: string): Promise<void> {
  await db('sign_in_failures').where({ throttle_key: throttleKey }).delete();
}
