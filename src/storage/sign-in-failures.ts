import type { Db } from './db';
import { countFailure, currentFailures, type FailureTable, type WindowedFailures } from './failure-windows';

export type SignInFailures = WindowedFailures;

const TABLE: FailureTable = { table: 'sign_in_failures', keyColumn: 'throttle_key' };

/**
 * Counts one failed sign-in against a throttle key (`account:<email>` or `address:<client
 * address>`; src/storage/failure-windows.ts). Not merchant-scoped: sign-in precedes any merchant.
 */
export function recordSignInFailure(db: Db, throttleKey: string, windowSeconds: number): Promise<SignInFailures> {
  return countFailure(db, TABLE, throttleKey, windowSeconds);
}

/** The keys' failures in their current windows (keys without any are left out). */
export function currentSignInFailures(db: Db, throttleKeys: string[], windowSeconds: number): Promise<Map<string, SignInFailures>> {
  return currentFailures(db, TABLE, throttleKeys, windowSeconds);
}

/** A successful sign-in forgets the account's failures (not the address's). */
export async function clearSignInFailures(db: Db, throttleKey: string): Promise<void> {
  await db('sign_in_failures').where({ throttle_key: throttleKey }).delete();
}
