import type { AccountRouteLimitSettings } from '../config';
import { RateLimitedError } from '../http/errors';
import type { Db } from '../storage/db';
import { reserveAccountRouteRequest } from '../storage/account-route-requests';

/**
 * The limit on the account routes a client reaches without a session (sign-ins, invitation
 * acceptance and its authenticator start, reset requests, reset completion and its authenticator
 * start): a client address may make `maxRequestsPerAddress` of them, together, per window; past it
 * they are 429 with Retry-After before any work (a password hash, a mail). The count is in
 * PostgreSQL, shared by every API process; the sign-in's throttle on failures comes on top.
 */
export class AccountRouteLimit {
  constructor(
    private readonly db: Db,
    private readonly settings: AccountRouteLimitSettings,
  ) {}

  /** Counts the request, or throws the 429 when the address made its limit's worth in the window. `clientAddress` as throttledAddress gives it. */
  async admit(clientAddress: string): Promise<void> {
    const reservation = await reserveAccountRouteRequest(this.db, clientAddress, this.settings.windowSeconds, this.settings.maxRequestsPerAddress);
    if (reservation.admitted) return;
    const seconds = Math.max(1, Math.ceil(reservation.secondsLeft));
    throw new RateLimitedError('Too many account requests from this address.', `Try again in ${seconds} seconds.`, seconds);
  }
}
