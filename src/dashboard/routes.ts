import express, { Router, type Response } from 'express';
import path from 'node:path';
import { findStaticDir } from '../http/static-dir';
import { throttledAddress } from '../http/admin-token-throttle';
import { AdminAuthenticationError } from '../http/errors';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import type { MerchantAccounts } from '../merchant-accounts';
import { SignInBody } from '../merchant-accounts/schemas';
import { presentOperatorSession, signInOperator, signOutOperator } from '../operator-accounts/sessions';
import { clearDashboardCookie, csrfOk, dashboardSessionOf, setDashboardCookie, SIGN_IN_HINT } from './session';

/** The dashboard's pages; each is the same shell, and app.js renders the page named by the path. */
export const DASHBOARD_PAGES = ['reviews', 'merchants', 'checkouts', 'events', 'customers', 'operators'] as const;
/** Served without a session: the sign-in page needs them. Everything else requires one. */
const PUBLIC_ASSETS = new Set(['login.js', 'dashboard.css', 'dom.js']);

const notSignedIn = () => new AdminAuthenticationError('Not signed in.', SIGN_IN_HINT);

/**
 * Nothing from another origin, never framed, never cached: the pages show operators' data.
 * Trusted Types with no policy: a string can never become HTML or script (innerHTML and the like
 * throw), so "every value as text" is the browser's rule, not only the code's.
 */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/**
 * GET /dashboard/* pages and assets, and the session endpoints (sign in, read, sign out): the
 * operator's people sign in as themselves (email, password, authenticator code) with the merchant
 * accounts' machinery, and their server-side session opens the pages and the admin API.
 */
export function dashboardRoutes({ ctx, throttle, secureCookies }: MerchantAccounts): Router {
  const dir = findStaticDir(__dirname, 'src/dashboard', 'app.html');
  const router = Router();
  const send = (res: Response, file: string) => {
    res.set(PAGE_HEADERS);
    res.sendFile(path.join(dir, file));
  };

  router.get('/login', (_req, res) => send(res, 'login.html'));

  // Throttled per account and per address like the merchant sign-in (the same counts).
  router.post('/session', async (req, res) => {
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

  // Assets: the sign-in page's are public; the application's need a session. A file that does not
  // exist, a directory or another method than GET/HEAD falls through to the JSON 404 (not the
  // static handler's errors, which reached the error handler as a 500, or its empty 405).
  router.use('/assets', async (req, res, next) => {
    if (!PUBLIC_ASSETS.has(req.path.replace(/^\//, '')) && !(await dashboardSessionOf(ctx, req))) return next(notSignedIn());
    // The pages' headers on every asset: app.html and login.html are served here too, and must not be framed either.
    res.set(PAGE_HEADERS);
    next();
  }, express.static(dir, { index: false, redirect: false }));

  router.get(['/', '/:page'], async (req, res, next) => {
    const page = req.params.page ?? 'reviews';
    if (!(DASHBOARD_PAGES as readonly string[]).includes(String(page))) return next();
    if (!(await dashboardSessionOf(ctx, req))) return res.redirect(303, '/dashboard/login');
    send(res, 'app.html');
  });

  return router;
}
