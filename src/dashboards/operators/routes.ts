import { Router } from 'express';
import { addDashboardPages } from '../kit/pages';
import { findStaticDir } from '../../http/static-dir';
import { throttledAddress } from '../../http/admin-token-throttle';
import { AdminAuthenticationError } from '../../http/errors';
import { parseEmptyBody, parseOrThrow } from '../../http/validate';
import type { MerchantAccounts } from '../../identity';
import { SignInBody } from '../../identity/schemas';
import { presentOperatorSession, signInOperator, signOutOperator } from '../../identity/operator-sessions';
import { clearDashboardCookie, csrfOk, dashboardSessionOf, setDashboardCookie, SIGN_IN_HINT } from '../../identity/admin-guard';

/** The dashboard's pages; each is the same shell, and app.js renders the page named by the path. */
export const DASHBOARD_PAGES = ['reviews', 'merchants', 'checkouts', 'events', 'customers', 'operators'] as const;
/** Served without a session: the sign-in page needs them. Everything else requires one. */
const PUBLIC_ASSETS = new Set(['login.js', 'dashboard.css', 'dom.js']);

const notSignedIn = () => new AdminAuthenticationError('Not signed in.', SIGN_IN_HINT);

/**
 * GET /dashboard/* pages and assets, and the session endpoints (sign in, read, sign out): the
 * operator's people sign in as themselves (email, password, authenticator code) with the merchant
 * accounts' machinery, and their server-side session opens the pages and the admin API.
 */
export function dashboardRoutes({ ctx, throttle, limit, secureCookies }: MerchantAccounts): Router {
  const dir = findStaticDir(__dirname, 'src/dashboards/operators', 'app.html');
  const router = Router();
  // Throttled per account and per address like the merchant sign-in (the same counts), behind the account routes' limit.
  router.post('/session', limit, async (req, res) => {
    const body = parseOrThrow(SignInBody, req.body ?? {});
    const signedIn = await signInOperator(ctx, throttle, throttledAddress(req.ip), body);
    setDashboardCookie(res, signedIn.token, secureCookies);
    res.set('Cache-Control', 'no-store').json(signedIn.body);
  });
  router.get('/session', async (req, res) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session) throw notSignedIn();
    res.set('Cache-Control', 'no-store').json(presentOperatorSession(session));
  });
  // Revokes the session for every API process, so a copy of the cookie is refused from now on.
  router.delete('/session', async (req, res) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session || !csrfOk(req, session)) throw notSignedIn();
    parseEmptyBody(req.body);
    await signOutOperator(ctx, session);
    clearDashboardCookie(res, secureCookies);
    res.json({ signed_out: true });
  });

  return addDashboardPages(router, {
    dir, mount: '/dashboard', pages: DASHBOARD_PAGES, home: 'reviews', publicAssets: PUBLIC_ASSETS,
    signedIn: async (req) => !!(await dashboardSessionOf(ctx, req)), notSignedIn,
  });
}
