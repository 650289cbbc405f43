import express, { type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a folder of static files lives: beside the compiled module in the source tree, or, from
 * the production build (dist/src/...), back in src/ since the build does not copy them.
 */
export function findStaticDir(moduleDir: string, sourceDir: string, marker: string): string {
  const candidates = [path.join(moduleDir, 'static'), path.resolve(moduleDir, '../../..', sourceDir, 'static')];
  const found = candidates.find((dir) => existsSync(path.join(dir, marker)));
  if (!found) throw new Error(`static files not found (looked for ${marker} in ${candidates.join(', ')})`);
  return found;
}

/**
 * A dashboard's files, then the files both dashboards share (src/http/static: dom.js,
 * dashboard.css), each served under the dashboard's own /assets/.
 */
export function dashboardAssets(dir: string): RequestHandler[] {
  const options = { index: false, redirect: false };
  return [express.static(dir, options), express.static(findStaticDir(__dirname, 'src/http', 'dom.js'), options)];
}

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
