import type { Db } from './db';

/** A client address's wrong admin tokens in its current window, and the seconds until that window passes. */
export interface AdminTokenFailures {
  failures: number;
  secondsLeft: number;
}

/**
 * Counts one wrong admin token from the address, in its current window or in a new one starting
 * now when the last has passed: one statement, so concurrent failures in several API processes are
 * all counted. Not merchant-scoped: the admin token is the operator's. Rows of windows that have
 * passed are deleted first; failures are few, since the throttle refuses an address over its limit
 * before counting more.
 */
export async function recordAdminTokenFailure(db: Db, clientAddress: string, windowSeconds: number): Promise<AdminTokenFailures> {
  await db.raw('DELETE FROM admin_token_failures WHERE window_started_at <= now() - make_interval(secs => ?)', [windowSeconds]);
  const result = await db.raw<{ rows: AdminTokenFailures[] }>(
    `INSERT INTO admin_token_failures AS f (client_address, window_started_at, failures) VALUES (?, now(), 1)
     ON CONFLICT (client_address) DO UPDATE SET
       failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => ?) THEN 1 ELSE f.failures + 1 END,
       window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => ?) THEN now() ELSE f.window_started_at END
     RETURNING failures, extract(epoch FROM window_started_at + make_interval(secs => ?) - now())::float AS "secondsLeft"`,
    [clientAddress, windowSeconds, windowSeconds, windowSeconds],
  );
  return result.rows[0]!;
}

/** The address's wrong admin tokens in its current window, or null when it has none (one primary-key read). */
export async function currentAdminTokenFailures(db: Db, clientAddress: string, windowSeconds: number): Promise<AdminTokenFailures | null> {
  const result = await db.raw<{ rows: AdminTokenFailures[] }>(
    `SELECT failures, extract(epoch FROM window_started_at + make_interval(secs => ?) - now())::float AS "secondsLeft"
     FROM admin_token_failures
     WHERE client_address = ? AND window_started_at > now() - make_interval(secs => ?)`,
    [windowSeconds, clientAddress, windowSeconds],
  );
  return result.rows[0] ?? null;
}
