import type { Db } from './db';

/**
 * Dashboard sessions signed out before their cookie expired, by the session's random id. Not
 * merchant-scoped: sessions are the operator's.
 */
export async function isDashboardSessionRevoked(db: Db, sessionId: string): Promise<boolean> {
  const row = await db('dashboard_session_revocations').where({ session_id: sessionId }).first('session_id');
  return row !== undefined;
}

/**
 * Revokes the session until `expiresAt` (when its cookie is refused anyway), and deletes the
 * revocations whose cookies have expired since: sign-outs are rare, so the table stays small.
 */
export async function revokeDashboardSession(db: Db, sessionId: string, expiresAt: Date): Promise<void> {
  await db('dashboard_session_revocations').insert({ session_id: sessionId, expires_at: expiresAt }).onConflict('session_id').ignore();
  await db('dashboard_session_revocations').where('expires_at', '<', db.fn.now()).delete();
}
