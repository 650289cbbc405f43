import express, { Router } from 'express';
import path from 'node:path';
import { findStaticDir } from '../http/static-dir';
import { publicRoute, route, serve } from '../identity';

/** Same-origin only: Swagger UI's own assets from the npm package, our page and its start script. */
const HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; form-action 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

/**
 * The files of swagger-ui-dist that our page loads, and nothing else of the package: its own
 * demo page (index.html with swagger-initializer.js, which loads the third-party petstore
 * document) and oauth2-redirect.html are HTML pages that would run on the dashboard's origin
 * without our CSP.
 */
const SWAGGER_UI_FILES = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js']);

/** Where the API reference is served: the router is mounted there, so no other request passes through it. */
export const DOCS_PATH = '/docs';

/** GET /docs: the OpenAPI document rendered by Swagger UI, whose assets ship in swagger-ui-dist (mounted at DOCS_PATH). */
export function docsRoutes(): Router {
  const dir = findStaticDir(__dirname, 'src/docs', 'index.html');
  const router = Router();
  // The package's directory, found through Node's resolver (the package ships no types).
  const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const docs = publicRoute('the API reference, rendered from the public OpenAPI document');
  serve(
    router,
    '/assets',
    docs,
    (req, _res, next) => next(SWAGGER_UI_FILES.has(req.path) ? undefined : 'router'),
    express.static(swaggerUi, { index: false, redirect: false, maxAge: '1h' }),
  );
  serve(router, '/static', docs, express.static(dir, { index: false, setHeaders: (res) => res.set(HEADERS) }));
  route(router, 'get', '/', docs, (_req, res) => {
    res.set(HEADERS).sendFile(path.join(dir, 'index.html'));
  });
  return router;
}
