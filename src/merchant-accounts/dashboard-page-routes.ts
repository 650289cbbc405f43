import { Router, type Response } from 'express';
import path from 'node:path';
import { MerchantSessionError } from '../http/errors';
import { dashboardAssets, findStaticDir, PAGE_HEADERS } from '../http/static-dir';
import type { AccountsContext } from './context';
import { sessionOfRequest } from './middleware';

/** The merchant dashboard's pages (GET /merchant/{page}); each is the same shell, and app.js renders the page the path names. */
export const MERCHANT_PAGES = ['home', 'payments', 'customers', 'reviews', 'developers', 'team', 'audit'] as const;
/** Served without a session: the sign-in page needs them. Every other asset needs one. */
const PUBLIC_ASSETS = new Set(['login.js', 'dashboard.css', 'merchant.css', 'dom.js', 'ui.js']);

/**
 * GET /merchant (home), /merchant/{page}, /merchant/login and /merchant/assets/*: the merchant's
 * own people's dashboard, which calls /merchant/v1 with the session cookie. The operator
 * dashboard's headers (strict CSP with Trusted Types, never framed, never cached).
 */
export function merchantDashboardPageRoutes(ctx: AccountsContext): Router {
  const dir = findStaticDir(__dirname, 'src/merchant-accounts', 'app.html');
  const router = Router();
  const send = (res: Response, file: string) => {
    res.set(PAGE_HEADERS);
    res.sendFile(path.join(dir, file));
  };

  router.get('/login', (_req, res) => send(res, 'login.html'));

  // A file that does not exist, a directory or another method than GET/HEAD falls through to the JSON 404.
  router.use('/assets', async (req, res, next) => {
    if (!PUBLIC_ASSETS.has(req.path.replace(/^\//, '')) && !(await sessionOfRequest(ctx, req))) return next(new MerchantSessionError('Sign in first.', 'Sign in at /merchant/login.'));
    res.set(PAGE_HEADERS);
    next();
  }, ...dashboardAssets(dir));

  router.get(['/', '/:page'], async (req, res, next) => {
    const page = req.params.page ?? 'home';
    if (!(MERCHANT_PAGES as readonly string[]).includes(String(page))) return next();
    if (!(await sessionOfRequest(ctx, req))) return res.redirect(303, '/merchant/login');
    send(res, 'app.html');
  });

  return router;
}
