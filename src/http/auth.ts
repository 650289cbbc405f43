import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hashSecret, hashesEqual } from '../crypto';
import type { Knex } from 'knex';
import { credentialStillActive, findMerchantByActiveCredential, isCredentialStillActive, type CredentialColumn, type CredentialGuard } from '../storage/api-keys';
import type { MerchantRow } from '../storage/merchants';
import type { Db } from '../storage/db';
import type { AdminTokenThrottle } from './admin-token-throttle';
import { credentialCacheFor, type Authenticated } from './credential-cache';
import { heldBackBodyError } from './json-body';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { AdminAuthenticationError, AuthenticationError, ServiceUnavailableError } from './errors';

declare module 'express-serve-static-core' {
  interface Request {
    /** The merchant the presented credential belongs to; every read and write is scoped to it. */
    merchant?: MerchantRow;
    /** Which of the merchant's credentials authenticated the request: the server-side API key or the browser-safe client secret. */
    merchantCredential?: CredentialKind;
    /** Set by requireMerchant with `proof: 'statement'`: the route checks the credential in its own statement (checkedInStatement). */
    credentialCheck?: CredentialCheck;
    /** Whether the credential was proven as of the request already (the cache's catch-up, or read from the database), or is left to the route's statement. */
    credentialProven?: boolean;
  }
}

/** What checkedInStatement needs: the guard of the credential as read, and how to read it again. */
interface CredentialCheck {
  guard: CredentialGuard;
  message: string;
  reload: () => Promise<Authenticated | undefined>;
}

/** `Authorization: Bearer <credential>`; a bare credential or another scheme yields null. */
export function bearerCredential(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match ? match[1]! : null;
}

export type CredentialKind = 'api_key' | 'client_secret';

const RULES: Record<CredentialKind, { prefix: string; message: string; column: CredentialColumn }> = {
  api_key: { prefix: 'key_', message: 'API key not found.', column: 'api_key_hash' },
  client_secret: { prefix: 'secret_', message: 'Client secret not found.', column: 'client_secret_hash' },
};

/** Reads of a changed credential one request makes before it gives up (each one follows a change that raced it). */
const MAX_CREDENTIAL_READS = 3;

/**
 * Authenticates a merchant credential. Anything missing, malformed, of the other kind, unknown
 * or revoked is the same 422 with the contract's message, so a caller learns nothing more.
 * `proof: 'statement'` is for a route whose work is one statement that can check the credential
 * itself (checkedInStatement): a cached credential is then trusted without the cache's catch-up
 * round trip, because the statement proves it. A request with an Idempotency-Key is caught up
 * all the same: its stored answer is replayed before the route's statement would run.
 */
export function requireMerchant(db: Db, kind: CredentialKind, message = RULES[kind].message, proof: 'catch-up' | 'statement' = 'catch-up'): RequestHandler {
  const rule = RULES[kind];
  const cache = credentialCacheFor(db);
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const credential = bearerCredential(req);
      if (!credential || !credential.startsWith(rule.prefix) || credential.length > 200) throw new AuthenticationError(message);
      const presented = hashSecret(credential);
      const load = async () => {
        const found = await findMerchantByActiveCredential(db, rule.column, presented);
        // The lookup is by hash; the constant-time comparison guards against any index-side shortcut.
        if (!found || !hashesEqual(found.storedHash, presented)) return undefined;
        return { merchant: found.merchant, version: found.version };
      };
      const proofNow = proof === 'statement' && req.header(IDEMPOTENCY_HEADER) === undefined ? 'statement' : 'catch-up';
      const found = await cache.get(presented, load, proofNow);
      if (!found) throw new AuthenticationError(message);
      req.merchant = found.merchant;
      req.merchantCredential = kind;
      req.credentialProven = proofNow === 'catch-up';
      if (proof === 'statement') {
        const reload = () => (cache.invalidate(found.merchant.id), cache.get(presented, load));
        req.credentialCheck = { guard: { column: rule.column, hash: presented, merchantId: found.merchant.id, version: found.version! }, message, reload };
      }
      next(heldBackBodyError(req)); // a body that is not JSON: 400, now that the credential passed
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Runs a route's work on the merchant of a credential read with `proof: 'statement'`, perhaps
 * from the cache. `work` puts `stillActive` into its one statement (or the same condition written
 * from `guard` with credentialStillActiveSql, for a statement prepared once) and answers undefined
 * when that statement did nothing. An answer stands only once the credential is proven as of the request:
 * a result, by the statement's own check; nothing or an error, by checking again (a round trip
 * only those answers pay). A credential revoked meanwhile is the 422 of requireMerchant; a merchant
 * changed meanwhile (its settings) runs `work` again on the merchant as it is now.
 */
export async function checkedInStatement<T>(
  db: Db,
  req: Request,
  work: (merchant: MerchantRow, stillActive: Knex.Raw, guard: CredentialGuard) => Promise<T | undefined>,
): Promise<T | undefined> {
  const check = req.credentialCheck;
  if (!check) throw new Error("checkedInStatement needs requireMerchant(…, 'statement') on its route");
  let merchant = merchantOf(req);
  let guard = check.guard;
  for (let read = 1; ; read++) {
    let failure: { error: unknown } | undefined;
    try {
      const result = await work(merchant, credentialStillActive(db, guard), guard);
      if (result !== undefined) return result;
    } catch (error) {
      failure = { error };
    }
    if (await isCredentialStillActive(db, guard)) {
      if (failure) throw failure.error;
      return undefined;
    }
    if (read >= MAX_CREDENTIAL_READS) throw new ServiceUnavailableError('The account changed while the request ran.');
    const fresh = await check.reload();
    if (!fresh) throw new AuthenticationError(check.message);
    merchant = req.merchant = fresh.merchant;
    guard = { ...guard, version: fresh.version! };
  }
}

/**
 * The admin API: a single operator token, compared in constant time. A wrong one is counted against
 * the client's address, which is refused 429 once past its limit (src/http/admin-token-throttle.ts);
 * a missing one is the 401 and counts nothing, and a right one costs no database work.
 */
export function requireAdmin(adminToken: string, throttle: AdminTokenThrottle): RequestHandler {
  const expected = hashSecret(adminToken);
  return async (req, _res, next) => {
    try {
      const credential = bearerCredential(req);
      if (!credential) throw new AdminAuthenticationError();
      await throttle.admit(req, hashesEqual(hashSecret(credential), expected), false);
      next(heldBackBodyError(req)); // a body that is not JSON: 400, now that the token passed
    } catch (error) {
      next(error);
    }
  };
}

/** The merchant set by requireMerchant; a route without it is a wiring bug, not a client error. */
export function merchantOf(req: Request): MerchantRow {
  if (!req.merchant) throw new Error('requireMerchant did not run for this route');
  return req.merchant;
}
