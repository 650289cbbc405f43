import type { Db } from './db';

/** A key's count in its current window, and the seconds until that window passes. */
export interface WindowedFailures {
  failures: number;
  secondsLeft: number;
}

/** A table of windowed counts: one row per key, counting its attempts in the window that began with its first. */
export interface FailureTable {
  table: 'admin_token_failures' | 'sign_in_failures' | 'account_route_requests';
  keyColumn: 'client_address' | 'throttle_key';
  countColumn: 'failures' | 'requests';
}

/** What a reservation came to: admitted (the key's count now includes it) or refused, with the key's window either way. */
export interface Reservation extends WindowedFailures {
  admitted: boolean;
}

const EXPIRED = 'f.window_started_at <= now() - make_interval(secs => ?)';
const SECONDS_LEFT = 'extract(epoch FROM window_started_at + make_interval(secs => ?) - now())::float AS "secondsLeft"';

/**
 * Counts one failure against the key, in its current window or in a new one starting now when the
 * last has passed: one statement, so concurrent failures in several API processes are all counted.
 */
export async function countFailure(db: Db, table: FailureTable, key: string, windowSeconds: number): Promise<WindowedFailures> {
  return (await upsertCount(db, table, key, windowSeconds, null))!;
}

/**
 * Reserves one attempt for the key before the work it limits: counted at once when the key has
 * fewer than `max` in its window (or its window has passed), refused otherwise. The check and the
 * count are one statement (the row's lock orders concurrent callers), so N concurrent attempts in
 * any number of API processes get at most `max` admissions per window.
 */
export async function reserveAttempt(db: Db, table: FailureTable, key: string, windowSeconds: number, max: number): Promise<Reservation> {
  const admitted = await upsertCount(db, table, key, windowSeconds, max);
  if (admitted) return { admitted: true, ...admitted };
  const current = (await currentFailures(db, table, [key], windowSeconds)).get(key);
  // The row's window passed between the two statements: nothing is counted against the key now.
  return { admitted: false, failures: current?.failures ?? max, secondsLeft: current?.secondsLeft ?? 1 };
}

/**
 * Adds one to the key's count in its window (a new window when the last has passed), unless `max`
 * is given and reached: then nothing is written and nothing answered. Rows of windows that have
 * passed are deleted first (through the index on the window's start).
 */
async function upsertCount(db: Db, { table, keyColumn, countColumn }: FailureTable, key: string, windowSeconds: number, max: number | null): Promise<WindowedFailures | undefined> {
  await db.raw(`DELETE FROM ${table} WHERE window_started_at <= now() - make_interval(secs => ?)`, [windowSeconds]);
  const result = await db.raw<{ rows: WindowedFailures[] }>(
    `INSERT INTO ${table} AS f (${keyColumn}, window_started_at, ${countColumn}) VALUES (?, now(), 1)
     ON CONFLICT (${keyColumn}) DO UPDATE SET
       ${countColumn} = CASE WHEN ${EXPIRED} THEN 1 ELSE f.${countColumn} + 1 END,
       window_started_at = CASE WHEN ${EXPIRED} THEN now() ELSE f.window_started_at END
     ${max === null ? '' : `WHERE ${EXPIRED} OR f.${countColumn} < ?`}
     RETURNING ${countColumn} AS failures, ${SECONDS_LEFT}`,
    max === null ? [key, windowSeconds, windowSeconds, windowSeconds] : [key, windowSeconds, windowSeconds, windowSeconds, max, windowSeconds],
  );
  return result.rows[0];
}

/** Gives back a reservation that did not end in a failure (a right password, a request refused elsewhere). */
export async function releaseAttempt(db: Db, { table, keyColumn, countColumn }: FailureTable, key: string): Promise<void> {
  await db.raw(`UPDATE ${table} SET ${countColumn} = ${countColumn} - 1 WHERE ${keyColumn} = ? AND ${countColumn} > 0`, [key]);
}

/** The keys' counts in their current windows (one index read; keys without any are left out). */
export async function currentFailures(db: Db, { table, keyColumn, countColumn }: FailureTable, keys: string[], windowSeconds: number): Promise<Map<string, WindowedFailures>> {
  const result = await db.raw<{ rows: Array<WindowedFailures & { key: string }> }>(
    `SELECT ${keyColumn} AS key, ${countColumn} AS failures, ${SECONDS_LEFT}
     FROM ${table}
     WHERE ${keyColumn} = ANY(?) AND window_started_at > now() - make_interval(secs => ?)`,
    [windowSeconds, keys, windowSeconds],
  );
  return new Map(result.rows.map(({ key, ...failures }) => [key, failures]));
}
