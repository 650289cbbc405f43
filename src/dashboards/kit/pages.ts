import express, { Router, type Request, type Response } from 'express';
import path from 'node:path';
import { isTransientDependencyFailure } from '../../http/errors';
import { findStaticDir } from '../../http/static-dir';
import type { Logger } from '../../logger';
import { renderProblemPage } from './problem-page';
import { renderSignInPage, type SignInPage } from './sign-in-page';
import { publicRoute, route, serve } from '../../identity';

/**
 * The operator's and the merchant's dashboards: nothing from another origin, never framed, never
 * cached (the pages show payments data).
 * Trusted Types with no policy: a string can never become HTML or script (innerHTML and the like
 * throw), so "every value as text" is the browser's rule, not only the code's.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

export interface DashboardPages {
  /** The dashboard's own static files (app.html, its scripts and styles). */
  dir: string;
  /** Its sign-in page, the kit's one page with these differences. */
  signIn: Omit<SignInPage, 'mount'>;
  /** Where the pages are mounted, e.g. /dashboard: a page without a session redirects to <mount>/login. */
  mount: string;
  /** The pages' names (GET <mount>/<page>); GET <mount> is `home`. */
  pages: readonly string[];
  home: string;
  /** Assets served without a session: the sign-in page's. */
  publicAssets: ReadonlySet<string>;
  signedIn: (req: Request) => Promise<boolean>;
  /** The error an asset beyond publicAssets answers without a session. */
  notSignedIn: () => Error;
  logger: Logger;
}

/** A browser opening a page (it prefers HTML), not a program reading the API's JSON. */
const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';

/**
 * The pages of a dashboard (the operator's, the merchant's) on `router`: GET /login; /assets/*,
 * the sign-in page's public and the rest behind a session; GET / and /<page>, the same shell
 * (app.js renders the page the path names), redirected (303) to the sign-in page without a session.
 * Then the files both dashboards share (src/dashboards/kit/static: the API client, the sign-in page's
 * logic, the app shell, the lists, dom.js, ui.js, records.js, dashboard.css), which import the
 * dashboard's own config.js: served from the same /assets/, the dashboard's folder first.
 */
export function addDashboardPages(router: Router, options: DashboardPages): Router {
  const send = (res: Response, file: string) => {
    res.set(PAGE_HEADERS);
    res.sendFile(path.join(options.dir, file));
  };
  const signInPage = renderSignInPage({ ...options.signIn, mount: options.mount });
  route(router, 'get', '/login', publicRoute('the sign-in page'), (_req, res) => {
    res.set(PAGE_HEADERS).type('html').send(signInPage);
  });

  // A file that does not exist, a directory or another method than GET/HEAD falls through to the
  // JSON 404 (not the static handler's errors, which reached the error handler as a 500, or its empty 405).
  const statics = { index: false, redirect: false };
  serve(router, '/assets', publicRoute('the sign-in page\'s assets; every other asset needs a session, checked here'), async (req, res, next) => {
    if (!options.publicAssets.has(req.path.replace(/^\//, '')) && !(await options.signedIn(req))) return next(options.notSignedIn());
    // The pages' headers on every asset: app.html is served here too, and must not be framed either.
    res.set(PAGE_HEADERS);
    next();
  }, express.static(options.dir, statics), express.static(findStaticDir(__dirname, 'src/dashboards/kit', 'dom.js'), statics));

  // A browser gets a page for what goes wrong (no such page, the service down), never the API's JSON.
  const problem = (res: Response, status: number, title: string, text: string, retry: string | null) => {
    res.status(status).set(PAGE_HEADERS).type('html').send(renderProblemPage({ mount: options.mount, title, text, retry }));
  };
  route(router, 'get', ['/', '/:page'], publicRoute('the page shell, redirected to the sign-in page without a session'), async (req, res, next) => {
    const page = ('page' in req.params ? req.params.page : undefined) ?? options.home;
    if (!options.pages.includes(String(page))) {
      if (!wantsHtml(req)) return next();
      return problem(res, 404, 'Page not found', 'This dashboard has no page at this address. Its pages are listed at the top of the dashboard.', null);
    }
    let signedIn: boolean;
    try {
      signedIn = await options.signedIn(req);
    } catch (error) {
      if (!wantsHtml(req)) throw error;
      if (isTransientDependencyFailure(error)) return problem(res, 503, 'The service is unavailable right now', 'Nothing was changed. Try again in a minute.', req.originalUrl);
      options.logger.error({ err: error, path: req.path }, 'dashboard page failed');
      return problem(res, 500, 'Something went wrong on our side', 'Nothing was changed. Try again; if it keeps happening, tell the operator.', req.originalUrl);
    }
    if (!signedIn) return res.redirect(303, `${options.mount}/login`);
    send(res, 'app.html');
  });
  return router;
}
