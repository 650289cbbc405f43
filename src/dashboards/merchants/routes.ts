import express, { Router } from 'express';
import path from 'node:path';
import { addDashboardPages } from '../kit/pages';
import { MerchantSessionError } from '../../http/errors';
import { findStaticDir } from '../../http/static-dir';
import { publicRoute, serve, sessionOfRequest } from '../../identity';
import type { AccountsContext } from '../../identity/context';

/** The merchant dashboard's pages (GET /merchant/{page}); each is the same shell, and app.js renders the page the path names. */
export const MERCHANT_PAGES = ['home', 'payments', 'customers', 'reviews', 'developers', 'team', 'audit', 'security'] as const;
/** Served without a session: the sign-in page needs them. Every other asset needs one. */
const PUBLIC_ASSETS = new Set(['signin.js', 'config.js', 'dashboard.css', 'merchant.css']);

/** uPlot (the home page's volume chart), served as its package ships it: dist/uPlot.esm.js and dist/uPlot.min.css. */
const UPLOT_DIR = path.dirname(require.resolve('uplot'));

/**
 * GET /merchant (home), /merchant/{page}, /merchant/login and /merchant/assets/*: the merchant's
 * own people's dashboard, which calls /merchant/v1 with the session cookie, under the operator
 * dashboard's headers (strict CSP with Trusted Types, never framed, never cached).
 */
export function merchantDashboardPageRoutes(ctx: AccountsContext): Router {
  const router = addDashboardPages(Router(), {
    dir: findStaticDir(__dirname, 'src/dashboards/merchants', 'app.html'), mount: '/merchant', pages: MERCHANT_PAGES, home: 'home', publicAssets: PUBLIC_ASSETS,
    signIn: { name: 'Merchant dashboard', action: '/merchant/v1/session', stylesheets: ['merchant.css'], codeAlways: false },
    signedIn: async (req) => !!(await sessionOfRequest(ctx, req)), notSignedIn: () => new MerchantSessionError('Sign in first.', 'Sign in at /merchant/login.'), logger: ctx.logger,
  });
  // Behind the same session check and headers as every other asset: the /assets handler above runs first.
  serve(router, '/assets/vendor/uplot', publicRoute("uPlot, the home page's chart; the /assets handler before it asks for a session"), express.static(UPLOT_DIR, { index: false, redirect: false }));
  return router;
}
