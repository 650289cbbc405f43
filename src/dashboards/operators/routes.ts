import { Router } from 'express';
import { addDashboardPages } from '../kit/pages';
import { findStaticDir } from '../../http/static-dir';
import { dashboardSessionOf, notSignedInOperator } from '../../identity';
import type { AccountsContext } from '../../identity/context';

/** The dashboard's pages; each is the same shell, and app.js renders the page named by the path. */
export const DASHBOARD_PAGES = ['reviews', 'merchants', 'checkouts', 'events', 'customers', 'operators', 'audit', 'security'] as const;
/** Served without a session: the sign-in page needs them. Everything else requires one. */
const PUBLIC_ASSETS = new Set(['signin.js', 'config.js', 'dashboard.css']);

/** GET /dashboard/* pages and assets; the session they need is identity's (POST/GET/DELETE /dashboard/session). */
export function dashboardRoutes(ctx: AccountsContext): Router {
  return addDashboardPages(Router(), {
    dir: findStaticDir(__dirname, 'src/dashboards/operators', 'app.html'), mount: '/dashboard', pages: DASHBOARD_PAGES, home: 'reviews', publicAssets: PUBLIC_ASSETS,
    signIn: { name: 'Payments dashboard', action: '/dashboard/session', stylesheets: [], codeAlways: true },
    signedIn: async (req) => !!(await dashboardSessionOf(ctx, req)), notSignedIn: notSignedInOperator, logger: ctx.logger,
  });
}
