import type { Express } from 'express';
import { declaredRoutes, type DeclaredAccess } from '../../src/identity/route-access';

/** A path in OpenAPI's spelling: `:param` as `{param}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * Every route the Express app serves, as `METHOD /path/{param}` (OpenAPI's spelling), found by
 * walking the app's router stack (static files mounted with `serve` are not routes and not listed).
 */
export function listRoutes(app: Express): string[] {
  const routes = declaredRoutes(app).filter((r) => r.method !== 'USE' && r.method !== '_ALL');
  return [...new Set(routes.map((r) => `${r.method} ${openApiPath(r.path)}`))].sort();
}

/** A route's key whatever its parameters are named: `METHOD /path/{x}`. */
export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${openApiPath(path).replace(/\{[^}]+\}/g, '{x}')}`;

/** What each route of the app declares, by routeKey. */
export function declaredAccessByRoute(app: Express): Map<string, DeclaredAccess | undefined> {
  return new Map(declaredRoutes(app).map((r) => [routeKey(r.method, r.path), r.access]));
}
