import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
import type { AdminTokenThrottleSettings } from '../config';
import type { Db } from '../storage/db';
import { currentAdminTokenFailures, recordAdminTokenFailure, type AdminTokenFailures } from '../storage/admin-token-failures';
import { AdminAuthenticationError, RateLimitedError } from './errors';

/** Addresses one process keeps track of; past it, those with nothing to remember are forgotten first. */
const MAX_TRACKED_ADDRESSES = 10_000;

/** What this process knows of an address: the count and window end PostgreSQL last answered, and its wrong tokens being counted now. */
interface AddressState {
  failures: number;
  until: number;
  inFlight: number;
}

/**
 * Throttles guesses of the admin token, at the dashboard's sign-in and at the admin API's bearer
 * check alike (they are the same guess): a client address that presented `maxFailures` wrong
 * tokens within a window is answered 429 with Retry-After until the window passes, whatever token
 * it sends (a right token let through would tell the answer from the guesses). A request without
 * a token guesses nothing and is not judged here.
 *
 * The count is in PostgreSQL, shared by every API process behind the service's address: counted
 * per process, an attacker's requests spread over N processes would get N times the guesses, and a
 * restart would forget them. A right bearer token costs no database work: only a wrong one is
 * counted (one upsert), and this process refuses an address from what it learnt from its own
 * counts (the cluster's total at that moment) plus the wrong tokens it is counting now, so a burst
 * of concurrent guesses gets no further than sequential ones. A process that has not yet counted a
 * wrong token from an address that other processes blocked lets a right bearer token through until
 * it has: per process and window, one guess more, or the limit again in one burst. The sign-in,
 * rare, also asks PostgreSQL before it lets a right token in.
 */
export class AdminTokenThrottle {
  private readonly addresses = new Map<string, AddressState>();

  constructor(
    private readonly db: Db,
    private readonly settings: AdminTokenThrottleSettings,
  ) {}

  /**
   * Judges a presented admin token: resolves when it may pass; throws the admin API's 401 for a
   * wrong one (counted) and 429 for any from a blocked address. `askDatabase` (the sign-in) also
   * refuses a right token from an address that other processes counted blocked.
   */
  async admit(req: Request, tokenIsRight: boolean, askDatabase: boolean): Promise<void> {
    const address = throttledAddress(req.ip);
    const known = this.knownRefusal(address);
    if (known) throw known;
    if (!tokenIsRight) throw await this.countFailure(address);
    if (!askDatabase) return;
    const current = await currentAdminTokenFailures(this.db, address, this.settings.windowSeconds);
    if (!current) return;
    this.learn(this.stateOf(address), current);
    const refusal = this.knownRefusal(address);
    if (refusal) throw refusal;
  }

  /** 429 when what this process knows (counted and being counted) reaches the limit; no database work. */
  private knownRefusal(address: string): RateLimitedError | null {
    const state = this.addresses.get(address);
    if (!state) return null;
    const now = Date.now();
    const counted = state.until > now ? state.failures : 0;
    if (counted + state.inFlight < this.settings.maxFailures) return null;
    // While only wrong tokens still being counted make the limit, their window has not been answered yet: a whole one.
    return tooManyFailures(state.until > now ? (state.until - now) / 1000 : this.settings.windowSeconds);
  }

  private async countFailure(address: string): Promise<AdminAuthenticationError | RateLimitedError> {
    const state = this.stateOf(address);
    state.inFlight += 1;
    try {
      const counted = await recordAdminTokenFailure(this.db, address, this.settings.windowSeconds);
      this.learn(state, counted);
      return counted.failures > this.settings.maxFailures ? tooManyFailures(counted.secondsLeft) : new AdminAuthenticationError();
    } finally {
      state.inFlight -= 1;
    }
  }

  /** Takes in an answer of PostgreSQL; concurrent answers may arrive out of order, so a window's count only grows. */
  private learn(state: AddressState, answer: AdminTokenFailures): void {
    const until = Date.now() + answer.secondsLeft * 1000;
    const newWindow = state.until <= Date.now() || until > state.until + (this.settings.windowSeconds * 1000) / 2;
    state.failures = newWindow ? answer.failures : Math.max(state.failures, answer.failures);
    if (newWindow) state.until = until;
  }

  private stateOf(address: string): AddressState {
    let state = this.addresses.get(address);
    if (!state) {
      if (this.addresses.size >= MAX_TRACKED_ADDRESSES) this.forgetIdle();
      state = { failures: 0, until: 0, inFlight: 0 };
      this.addresses.set(address, state);
    }
    return state;
  }

  /** Forgets the addresses whose window has passed, then (guesses from very many addresses at once) the oldest: PostgreSQL still counts them. */
  private forgetIdle(): void {
    const now = Date.now();
    for (const [address, state] of this.addresses) if (state.inFlight === 0 && state.until <= now) this.addresses.delete(address);
    for (const [address, state] of this.addresses) {
      if (this.addresses.size < MAX_TRACKED_ADDRESSES) break;
      if (state.inFlight === 0) this.addresses.delete(address);
    }
  }
}

function tooManyFailures(secondsLeft: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil(secondsLeft));
  return new RateLimitedError('Too many wrong admin tokens from this address.', `Try again in ${seconds} seconds.`, seconds);
}

/**
 * The address a client's failures are counted under (`req.ip`, so behind TRUST_PROXY's proxies the
 * client's own): an IPv4 address as it is (IPv4-mapped IPv6 included), an IPv6 address by its /64,
 * since one client usually holds a whole /64 and could otherwise try from a new address each time.
 */
export function throttledAddress(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip || 'unknown';
  const address = ipaddr.process(ip);
  if (address instanceof ipaddr.IPv4) return address.toString();
  return `${address.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
