import express, { Router } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The assets live beside this file in the source tree; the production build compiles to
 * dist/src/wallet without copying them, so from there we look back into src/.
 */
export function walletStaticDir(): string {
  const candidates = [path.join(__dirname, 'static'), path.resolve(__dirname, '../../../src/wallet/static')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`wallet assets not found (looked in ${candidates.join(', ')})`);
  return found;
}

/**
 * Headers of the hosted page. It must work inside a merchant's iframe (`experience: iframe`),
 * so any ancestor may frame it and no X-Frame-Options is sent; `payment=*` lets the frame use
 * the Payment Request API when the host page grants it (allow="payment"). Scripts, styles and
 * calls stay on our own origin; product images may come from the merchant's https hosts.
 */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    'frame-ancestors *',
  ].join('; '),
  'Permissions-Policy': 'payment=*',
  // The URL carries the client secret: never send it on to product image hosts or the return_url.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/** GET /checkout/:id (the checkout's `url`) and the page's assets under /wallet-assets. */
export function walletPageRoutes(): Router {
  const dir = walletStaticDir();
  const indexFile = path.join(dir, 'index.html');
  const router = Router();

  router.use(
    '/wallet-assets',
    express.static(dir, {
      index: false,
      maxAge: '5m',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );

  // The page is the same for every checkout: wallet.js reads the id from the path and the
  // secret from the query, and everything else comes from the wallet API.
  router.get('/checkout/:id', (_req, res, next) => {
    res.set(PAGE_HEADERS);
    res.sendFile(indexFile, (error) => {
      if (error) next(error);
    });
  });

  return router;
}
