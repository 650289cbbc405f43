import type { MerchantSignInThrottleSettings } from '../config';
import { RateLimitedError, type ApiError } from '../http/errors';
import type { Db } from '../storage/db';
import { clearSignInFailures, currentSignInFailures, recordSignInFailure } from '../storage/sign-in-failures';

export interface ThrottleKeys {
  account: string;
  address: string;
}

/**
 * Throttles password guessing at the merchant sign-in, per account (one person's password guessed
 * from many addresses) and per client address (many accounts guessed from one): a key with
 * `max` failures in its window refuses further sign-ins with 429 and Retry-After until the window
 * passes, a right password included. Counts live in PostgreSQL, shared by every API process (the
 * pattern of src/http/admin-token-throttle.ts); sign-ins are rare, so each pays one read first.
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

  async admit(keys: ThrottleKeys): Promise<void> {
    const current = await currentSignInFailures(this.db, [keys.account, keys.address], this.settings.windowSeconds);
    const refusal = this.refusal(current.get(keys.account)?.failures ?? 0, current.get(keys.account)?.secondsLeft ?? 0, this.settings.maxFailuresPerAccount, 'this account')
      ?? this.refusal(current.get(keys.address)?.failures ?? 0, current.get(keys.address)?.secondsLeft ?? 0, this.settings.maxFailuresPerAddress, 'this address');
    if (refusal) throw refusal;
  }

  /** Counts a failure against both keys and answers the error to raise (the 401 given, or 429 past a limit). */
  async fail(keys: ThrottleKeys, error: ApiError): Promise<ApiError> {
    const account = await recordSignInFailure(this.db, keys.account, this.settings.windowSeconds);
    const address = await recordSignInFailure(this.db, keys.address, this.settings.windowSeconds);
    return this.refusal(account.failures - 1, account.secondsLeft, this.settings.maxFailuresPerAccount, 'this account')
      ?? this.refusal(address.failures - 1, address.secondsLeft, this.settings.maxFailuresPerAddress, 'this address')
      ?? error;
  }

  /** A right password forgets the account's failures; the address's stay counted. */
  async succeed(keys: ThrottleKeys): Promise<void> {
    await clearSignInFailures(this.db, keys.account);
  }

  private refusal(failures: number, secondsLeft: number, max: number, what: string): RateLimitedError | null {
    if (failures < max) return null;
    const seconds = Math.max(1, Math.ceil(secondsLeft));
    return new RateLimitedError(`Too many failed sign-ins for ${what}.`, `Try again in ${seconds} seconds.`, seconds);
  }
}
