import { Router, type Response } from 'express';
import path from 'node:path';
import { dashboardAssets, findStaticDir, PAGE_HEADERS } from '../http/static-dir';
import { z } from 'zod';
import { AdminAuthenticationError } from '../http/errors';
import { parseOrThrow } from '../http/validate';
import type { AdminTokenThrottle } from '../http/admin-token-throttle';
import type { DashboardSessions } from './session';

/** The dashboard's pages; each is the same shell, and app.js renders the page named by the path. */
export const DASHBOARD_PAGES = ['reviews', 'merchants', 'checkouts', 'events', 'customers'] as const;
/** Served without a session: the sign-in page needs them. Everything else requires one. */
const PUBLIC_ASSETS = new Set(['login.js', 'dashboard.css', 'dom.js']);

const SignInBody = z.object({ token: z.string().min(1).max(500), name: z.string().trim().min(1).max(80) }).strict();

/** GET /dashboard/* pages and assets, and the session endpoints (sign in, read, sign out). */
export function dashboardRoutes(sessions: DashboardSessions, throttle: AdminTokenThrottle): Router {
  const dir = findStaticDir(__dirname, 'src/dashboard', 'app.html');
  const router = Router();
  const send = (res: Response, file: string) => {
    res.set(PAGE_HEADERS);
    res.sendFile(path.join(dir, file));
  };

  router.get('/login', (_req, res) => send(res, 'login.html'));

  // Throttled with the admin API's bearer check (the same guess): a blocked address is refused whatever token it sends.
  router.post('/session', async (req, res) => {
    const body = parseOrThrow(SignInBody, req.body ?? {});
    await throttle.admit(req, sessions.tokenMatches(body.token), true);
    res.set('Cache-Control', 'no-store').json(sessions.start(res, body.name));
  });
  router.get('/session', async (req, res) => {
    const session = await sessions.read(req);
    if (!session) throw new AdminAuthenticationError('Not signed in.');
    res.set('Cache-Control', 'no-store').json(session);
  });
  // Revokes the session for every API process, so a copy of the cookie is refused from now on.
  router.delete('/session', async (req, res) => {
    if (!(await sessions.end(req, res))) throw new AdminAuthenticationError('Not signed in.');
    res.json({ signed_out: true });
  });

  // Assets: the sign-in page's are public; the application's need a session. A file that does not
  // exist, a directory or another method than GET/HEAD falls through to the JSON 404 (not the
  // static handler's errors, which reached the error handler as a 500, or its empty 405).
  router.use('/assets', async (req, res, next) => {
    if (!PUBLIC_ASSETS.has(req.path.replace(/^\//, '')) && !(await sessions.read(req))) return next(new AdminAuthenticationError('Not signed in.'));
    // The pages' headers on every asset: app.html and login.html are served here too, and must not be framed either.
    res.set(PAGE_HEADERS);
    next();
  }, ...dashboardAssets(dir));

  router.get(['/', '/:page'], async (req, res, next) => {
    const page = req.params.page ?? 'reviews';
    if (!(DASHBOARD_PAGES as readonly string[]).includes(String(page))) return next();
    if (!(await sessions.read(req))) return res.redirect(303, '/dashboard/login');
    send(res, 'app.html');
  });

  return router;
}
