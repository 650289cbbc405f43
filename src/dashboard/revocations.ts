import type { Db } from '../storage/db';
import { isDashboardSessionRevoked, revokeDashboardSession } from '../storage/dashboard-session-revocations';
import type { SessionRevocations } from './session';

/** Signed-out sessions kept in PostgreSQL, so every API process refuses a revoked cookie. */
export function storedRevocations(db: Db): SessionRevocations {
  return { isRevoked: (id) => isDashboardSessionRevoked(db, id), revoke: (id, expiresAt) => revokeDashboardSession(db, id, expiresAt) };
}
