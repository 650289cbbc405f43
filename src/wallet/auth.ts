import type { RequestHandler } from 'express';
import type { Db } from '../storage/db';
import { AuthenticationError } from '../http/errors';
import { checkoutForSecret, type CheckoutRow, type SecretCheckout } from './service';
import { readWalletView, type ViewReads } from './read';

declare module 'express-serve-static-core' {
  interface Request {
    /** The checkout whose own client_secret authenticated this wallet call. */
    checkout?: CheckoutRow;
    /** Its merchant row's version, as the checkout's lookup read it (merchantOfCheckout). */
    checkoutMerchantVersion?: string;
    /** The wallet view's reads by checkout id, sent as the request arrived (readViewOnArrival). */
    walletViewReads?: Promise<ViewReads>;
  }
}

const MESSAGE = 'Client secret not found.';

/**
 * Sends the wallet view's reads by checkout id as the request arrives, beside the checkout's
 * lookup (requireCheckoutSecret) instead of after it: one round trip in series. They are used
 * only once the client secret matched; for a wrong one they are dropped.
 */
export function readViewOnArrival(db: Db): RequestHandler {
  return (req, _res, next) => {
    const reads = readWalletView(db, String(req.params.id));
    reads.catch(() => undefined); // awaited by loadWalletView; never an unhandled rejection meanwhile
    req.walletViewReads = reads;
    next();
  };
}

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
      const found = await checkoutForSecret(db, checkoutId, secret);
      if (!found) throw new AuthenticationError(MESSAGE);
      req.checkout = found.checkout;
      req.checkoutMerchantVersion = found.merchantVersion;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The checkout that authenticated the call, with its merchant's version. */
export function checkoutOf(req: Parameters<RequestHandler>[0]): SecretCheckout {
  if (!req.checkout || req.checkoutMerchantVersion === undefined) throw new Error('requireCheckoutSecret did not run for this route');
  return { checkout: req.checkout, merchantVersion: req.checkoutMerchantVersion };
}
