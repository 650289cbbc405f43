import type { Config } from '../config';
import type { Sealer } from '../crypto';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import type { Mailer } from './mailer';

/** What the merchant accounts services are built from (one per app). */
export interface AccountsContext {
  db: Db;
  sealer: Sealer;
  mailer: Mailer;
  logger: Logger;
  config: Pick<Config, 'apiBaseUrl' | 'merchantSignInThrottle' | 'sessionIdleSeconds'>;
}

/**
 * Who made a change: a person of the merchant, one of the operator's people (signed in to the
 * operator dashboard), the admin token (automation on the admin API), an invited person before
 * their account exists, or someone not signed in (a sign-in that failed: the email they tried).
 * `address` is the client address of the request that acted, kept with the audit entry.
 */
export type Actor = (
  | { kind: 'user'; id: string; email?: string }
  | { kind: 'operator'; id: string; email: string }
  | { kind: 'admin' }
  | { kind: 'invitation'; id: string }
  | { kind: 'anonymous'; email: string }
) & { address?: string };

/** Who acts through a dashboard: a merchant's person, one of the operator's people, or the admin token. */
export type DashboardActor = Extract<Actor, { kind: 'user' | 'operator' | 'admin' }>;

/** Who acts through the admin API: one of the operator's people signed in to the dashboard, or the admin token. */
export type AdminActor = Extract<Actor, { kind: 'operator' | 'admin' }>;

/**
 * Whose records an action may touch: one merchant's (a merchant's person acts through their
 * session, scoped to its merchant) or every merchant's (the operator, through the admin API).
 */
export type MerchantScope = { merchantId: string } | typeof EVERY_MERCHANT;
export const EVERY_MERCHANT = 'every merchant';

/** Whether a record of `merchantId` is within the scope; one outside it is answered as not found. */
export const inScope = (scope: MerchantScope, merchantId: string): boolean => scope === EVERY_MERCHANT || scope.merchantId === merchantId;

/** The name a review decision records for the admin token, which is no person. */
export const ADMIN_TOKEN_NAME = 'admin API';

/** The email a review decision or a refund records for who asked: the operator's or the merchant's person's; null for the admin token. */
export function actorEmail(actor: Actor): string | null {
  if (actor.kind === 'operator') return actor.email;
  if (actor.kind === 'user') return actor.email ?? null;
  return null;
}

export const actorName = (actor: Actor): string => (actor.kind === 'admin' || actor.kind === 'anonymous' ? actor.kind : actor.id);
