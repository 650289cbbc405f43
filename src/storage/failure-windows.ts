import type { Db } from './db';

/** A key's failures in its current window, and the seconds until that window passes. */
export interface WindowedFailures {
  failures: number;
  secondsLeft: number;
}

/** A table of failure counts: one row per key, counting its failures in the window that began with its first. */
export interface FailureTable {
  table: 'admin_token_failures' | 'sign_in_failures';
  keyColumn: 'client_address' | 'throttle_key';
}

/**
 * Counts one failure against the key, in its current window or in a new one starting now when the
 * last has passed: one statement, so concurrent failures in several API processes are all counted.
 * Rows of windows that have passed are deleted first (through the index on the window's start).
 */
export async function countFailure(db: Db, { table, keyColumn }: FailureTable, key: string, windowSeconds: number): Promise<WindowedFailures> {
  await db.raw(`DELETE FROM ${table} WHERE window_started_at <= now() - make_interval(secs => ?)`, [windowSeconds]);
  const result = await db.raw<{ rows: WindowedFailures[] }>(
    `INSERT INTO ${table} AS f (${keyColumn}, window_started_at, failures) VALUES (?, now(), 1)
     ON CONFLICT (${keyColumn}) DO UPDATE SET
       failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => ?) THEN 1 ELSE f.failures + 1 END,
       window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => ?) THEN now() ELSE f.window_started_at END
     RETURNING failures, extract(epoch FROM window_started_at + make_interval(secs => ?) - now())::float AS "secondsLeft"`,
    [key, windowSeconds, windowSeconds, windowSeconds],
  );
  return result.rows[0]!;
}

/** The keys' failures in their current windows (one index read; keys without any are left out). */
export async function currentFailures(db: Db, { table, keyColumn }: FailureTable, keys: string[], windowSeconds: number): Promise<Map<string, WindowedFailures>> {
  const result = await db.raw<{ rows: Array<WindowedFailures & { key: string }> }>(
    `SELECT ${keyColumn} AS key, failures, extract(epoch FROM window_started_at + make_interval(secs => ?) - now())::float AS "secondsLeft"
     FROM ${table}
     WHERE ${keyColumn} = ANY(?) AND window_started_at > now() - make_interval(secs => ?)`,
    [windowSeconds, keys, windowSeconds],
  );
  return new Map(result.rows.map(({ key, ...failures }) => [key, failures]));
}
