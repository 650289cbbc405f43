import { Router } from 'express';
import { addDashboardPages } from '../http/dashboard-pages';
import { findStaticDir } from '../http/static-dir';
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

/** The session endpoints (sign in, read, sign out), and the pages and assets under /dashboard. */
export function dashboardRoutes(sessions: DashboardSessions, throttle: AdminTokenThrottle): Router {
  const dir = findStaticDir(__dirname, 'src/dashboard', 'app.html');
  const router = Router();
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

  return addDashboardPages(router, {
    dir, mount: '/dashboard', pages: DASHBOARD_PAGES, home: 'reviews', publicAssets: PUBLIC_ASSETS,
    signedIn: async (req) => !!(await sessions.read(req)), notSignedIn: () => new AdminAuthenticationError('Not signed in.'),
  });
}
