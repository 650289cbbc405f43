import express, { Router } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../app-deps';
import { checkoutExperience } from './service';
import { publicRoute, route, serve } from '../identity';

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
 * Headers of the hosted page. Scripts, styles and calls stay on our own origin; product images
 * may come from the merchant's https hosts. A checkout made with `experience: iframe` must work
 * inside a merchant's iframe, so any ancestor may frame its page; `payment=*` lets the frame use
 * the Payment Request API when the host page grants it (allow="payment"). Any other checkout's
 * page (and an unknown id's) is never framed: a framed page with a saved card preselected is
 * one click from a payment, so another site must not be able to lay it under its own buttons.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  // Trusted Types with no policy: no string ever becomes HTML or script on the page (innerHTML throws).
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
];
const PAGE_HEADERS: Record<string, string> = {
  'Permissions-Policy': 'payment=*',
  // The URL carries the client secret: never send it on to product image hosts or the return_url.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};
const FRAMED_PAGE_HEADERS: Record<string, string> = { ...PAGE_HEADERS, 'Content-Security-Policy': [...PAGE_CSP, 'frame-ancestors *'].join('; ') };
const UNFRAMED_PAGE_HEADERS: Record<string, string> = { ...PAGE_HEADERS, 'Content-Security-Policy': [...PAGE_CSP, "frame-ancestors 'none'"].join('; '), 'X-Frame-Options': 'DENY' };

/**
 * Whether an asset path names an HTML file, judged as the static server will read it: decoded
 * once (so `index.%68tml` is index.html) and normalized (so `x/..%2Findex.html` is too), in any
 * letter case. A path still holding a `%` after that decoding was encoded twice: no asset's name
 * has one, so it is refused too rather than judged by a second decoding the server never does.
 */
export function isPageAsset(requestPath: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return false; // not percent-encoding at all: the static server answers it 400
  }
  return decoded.includes('%') || /\.html?\/?$/i.test(path.posix.normalize(decoded));
}

/** GET /checkout/:id (the checkout's `url`) and the page's assets under /wallet-assets. */
export function walletPageRoutes({ db }: Pick<AppDeps, 'db'>): Router {
  const dir = walletStaticDir();
  const indexFile = path.join(dir, 'index.html');
  const router = Router();

  // The page itself only under /checkout/{id}, with its headers: here it would be a page on our
  // origin that any site may frame, with a 5-minute cache and no CSP.
  serve(
    router,
    '/wallet-assets',
    publicRoute('the hosted checkout page\'s scripts and styles'),
    (req, _res, next) => next(isPageAsset(req.path) ? 'router' : undefined),
    express.static(dir, {
      index: false,
      maxAge: '5m',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );

  // The page is the same for every checkout: wallet.js reads the id from the path and the
  // secret from the query, and everything else comes from the wallet API. Only its framing
  // depends on the checkout (its experience), read without the secret, which a reload no longer sends.
  route(router, 'get', '/checkout/:id', publicRoute('the hosted checkout page; its data comes from the wallet API, behind the checkout\'s secret'), async (req, res, next) => {
    const experience = await checkoutExperience(db, req.params.id);
    res.set(experience === 'iframe' ? FRAMED_PAGE_HEADERS : UNFRAMED_PAGE_HEADERS);
    res.sendFile(indexFile, (error) => {
      if (error) next(error);
    });
  });

  return router;
}
