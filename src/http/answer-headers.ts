import type { RequestHandler } from 'express';

/** The JSON APIs: the merchant API, the admin API (also called by the dashboard with its cookie) and the wallet API. */
export const API_PREFIXES = ['/api/v1', '/admin/v1', '/wallet/v1', '/merchant/v1'];

/** Every answer is what its Content-Type says: no browser reads a JSON error that echoes a path as HTML or script. */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/**
 * API answers are never stored: they carry secrets (a new merchant's keys, a checkout's
 * client_secret and url), card and bank details (last four, expiry) and customers' names, emails
 * and KYC evidence. Without it a browser keeps the dashboard's admin reads (sent with an ETag,
 * so worth revalidating) in its disk cache after sign-out.
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
