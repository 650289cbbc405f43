import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hashSecret, hashesEqual } from '../crypto';
import { findActiveByApiKeyHash, findActiveByClientSecretHash } from '../storage/api-keys';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import type { Db } from '../storage/db';
import type { AdminTokenThrottle } from './admin-token-throttle';
import { credentialCacheFor } from './credential-cache';
import { heldBackBodyError } from './json-body';
import { AdminAuthenticationError, AuthenticationError } from './errors';

declare module 'express-serve-static-core' {
  interface Request {
    /** The merchant the presented credential belongs to; every read and write is scoped to it. */
    merchant?: MerchantRow;
    /** Which of the merchant's credentials authenticated the request: the server-side API key or the browser-safe client secret. */
    merchantCredential?: CredentialKind;
  }
}

/** `Authorization: Bearer <credential>`; a bare credential or another scheme yields null. */
export function bearerCredential(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match ? match[1]! : null;
}

export type CredentialKind = 'api_key' | 'client_secret';

const RULES: Record<CredentialKind, { prefix: string; message: string; lookup: typeof findActiveByApiKeyHash; column: 'api_key_hash' | 'client_secret_hash' }> = {
  api_key: { prefix: 'key_', message: 'API key not found.', lookup: findActiveByApiKeyHash, column: 'api_key_hash' },
  client_secret: {
    prefix: 'secret_',
    message: 'Client secret not found.',
    lookup: findActiveByClientSecretHash,
    column: 'client_secret_hash',
  },
};

/**
 * Authenticates a merchant credential. Anything missing, malformed, of the other kind, unknown
 * or revoked is the same 422 with the contract's message, so a caller learns nothing more.
 */
export function requireMerchant(db: Db, kind: CredentialKind, message = RULES[kind].message): RequestHandler {
  const rule = RULES[kind];
  const cache = credentialCacheFor(db);
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const credential = bearerCredential(req);
      if (!credential || !credential.startsWith(rule.prefix) || credential.length > 200) throw new AuthenticationError(message);
      const presented = hashSecret(credential);
      const merchant = await cache.get(presented, async () => {
        const key = await rule.lookup(db, presented);
        // The lookup is by hash; the constant-time comparison guards against any index-side shortcut.
        if (!key || !hashesEqual(key[rule.column], presented)) return undefined;
        return findMerchant(db, key.merchant_id);
      });
      if (!merchant) throw new AuthenticationError(message);
      req.merchant = merchant;
      req.merchantCredential = kind;
      next(heldBackBodyError(req)); // a body that is not JSON: 400, now that the credential passed
    } catch (error) {
      next(error);
    }
  };
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
