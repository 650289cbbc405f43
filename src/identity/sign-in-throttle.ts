import type { MerchantSignInThrottleSettings } from '../config';
import { RateLimitedError } from '../http/errors';
import type { Db } from '../storage/db';
import { clearSignInFailures, releaseSignInAttempt, reserveSignInAttempt, type SignInReservation } from '../storage/sign-in-failures';

export interface ThrottleKeys {
  account: string;
  address: string;
}

/** Which of the sign-in's limits a key counts against. */
export type SignInLimit = 'account' | 'address';

/** A throttle refusal, naming the limit that refused. */
export class SignInThrottledError extends RateLimitedError {
  constructor(
    readonly limit: SignInLimit,
    seconds: number,
  ) {
    super(`Too many failed sign-ins for this ${limit}.`, `Try again in ${seconds} seconds.`, seconds);
  }
}

/**
 * Throttles password and authenticator-code guessing at every sign-in (merchants' and operators'),
 * per account (one person's password guessed from many addresses) and per client address (many
 * accounts guessed from one): a key with `max` failures in its window refuses further sign-ins with
 * 429 and Retry-After until the window passes, a right password included.
 *
 * Each attempt reserves its place on both keys before any password work, in one statement per key
 * that refuses a key at its limit, so a burst of concurrent guesses gets no more checks than
 * sequential ones. The reservation is the failure unless the attempt gives it back: a right password
 * forgets the account's failures and returns the address's place. Counts live in PostgreSQL, shared
 * by every API process (src/storage/failure-windows.ts).
 */
export class SignInThrottle {
  constructor(
    private readonly db: Db,
    private readonly settings: MerchantSignInThrottleSettings,
  ) {}

  /** `clientAddress` as throttledAddress (src/http/admin-token-throttle.ts) gives it: an IPv6 client by its /64. */
  keysFor(email: string, clientAddress: string): ThrottleKeys {
    return { account: `account:${email}`, address: `address:${clientAddress}` };
  }

  /**
   * Reserves one attempt on both keys, or throws SignInThrottledError (nothing reserved). Answers
   * the limits the attempt reaches: should it fail, those limits engage.
   */
  async reserve(keys: ThrottleKeys): Promise<SignInLimit[]> {
    const { windowSeconds, maxFailuresPerAccount, maxFailuresPerAddress } = this.settings;
    const account = await reserveSignInAttempt(this.db, keys.account, windowSeconds, maxFailuresPerAccount);
    if (!account.admitted) throw refusal('account', account);
    const address = await reserveSignInAttempt(this.db, keys.address, windowSeconds, maxFailuresPerAddress);
    if (!address.admitted) {
      await releaseSignInAttempt(this.db, keys.account);
      throw refusal('address', address);
    }
    const reached: SignInLimit[] = [];
    if (account.failures >= maxFailuresPerAccount) reached.push('account');
    if (address.failures >= maxFailuresPerAddress) reached.push('address');
    return reached;
  }

  /** An attempt that neither failed nor succeeded (a right password still missing its code) gives its places back. */
  async release(keys: ThrottleKeys): Promise<void> {
    await releaseSignInAttempt(this.db, keys.account);
    await releaseSignInAttempt(this.db, keys.address);
  }

  /** A right password forgets the account's failures; the address's earlier failures stay counted. */
  async succeed(keys: ThrottleKeys): Promise<void> {
    await clearSignInFailures(this.db, keys.account);
    await releaseSignInAttempt(this.db, keys.address);
  }
}

function refusal(limit: SignInLimit, reservation: SignInReservation): SignInThrottledError {
  return new SignInThrottledError(limit, Math.max(1, Math.ceil(reservation.secondsLeft)));
}
