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
  | { kind: 'user'; id: string }
  | { kind: 'operator'; id: string; email: string }
  | { kind: 'admin' }
  | { kind: 'invitation'; id: string }
  | { kind: 'anonymous'; email: string }
) & { address?: string };

/** Who acts through the admin API: one of the operator's people signed in to the dashboard, or the admin token. */
export type AdminActor = Extract<Actor, { kind: 'operator' | 'admin' }>;

export const actorName = (actor: Actor): string => (actor.kind === 'admin' || actor.kind === 'anonymous' ? actor.kind : actor.id);
