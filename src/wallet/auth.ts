import type { RequestHandler } from 'express';
import type { Db } from '../storage/db';
import { AuthenticationError } from '../http/errors';
import { credentialCacheFor } from '../http/credential-cache';
import { checkoutForSecret, type CheckoutRow } from './service';

declare module 'express-serve-static-core' {
  interface Request {
    /** The checkout whose own client_secret authenticated this wallet call. */
    checkout?: CheckoutRow;
    /** The credential cache's catch-up sent as the request arrived (catchUpOnArrival). */
    merchantCaughtUp?: Promise<boolean>;
  }
}

/**
 * Sends the credential cache's catch-up as the request arrives, for a route that reads the
 * checkout's merchant from the cache later: it then runs beside the checkout's lookup instead of
 * after it, and still reads every change announced before the request.
 */
export function catchUpOnArrival(db: Db): RequestHandler {
  const cache = credentialCacheFor(db);
  return (req, _res, next) => {
    req.merchantCaughtUp = cache.catchUp();
    next();
  };
}

const MESSAGE = 'Client secret not found.';

/**
 * The wallet API authenticates each call with the checkout's own client_secret (header
 * X-Client-Secret). A wrong secret and an unknown checkout are the same 422, so the wallet
 * cannot be used to probe checkout ids.
 */
export function requireCheckoutSecret(db: Db): RequestHandler {
  return async (req, _res, next) => {
    try {
      const secret = req.header('x-client-secret');
      const checkoutId = typeof req.params.id === 'string' ? req.params.id : undefined;
      if (!secret || !checkoutId || secret.length > 200) throw new AuthenticationError(MESSAGE);
      const checkout = await checkoutForSecret(db, checkoutId, secret);
      if (!checkout) throw new AuthenticationError(MESSAGE);
      req.checkout = checkout;
      next();
    } catch (error) {
      next(error);
    }
  };
}

export function checkoutOf(req: Parameters<RequestHandler>[0]): CheckoutRow {
  if (!req.checkout) throw new Error('requireCheckoutSecret did not run for this route');
  return req.checkout;
}
