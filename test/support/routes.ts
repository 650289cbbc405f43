import type { Express } from 'express';

type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; handle?: { stack?: Layer[] }; rawPath?: string | string[] };

/** A mount prefix has no trailing slash ('' at the top); '/' under a prefix is the prefix itself. */
const join = (prefix: string, path: string) => (path === '/' || path === '' ? prefix : `${prefix}${path}`);

/**
 * Every route the Express app serves, as `METHOD /path/{param}` (OpenAPI's spelling), found by
 * walking the app's router stack (static-file middleware has no routes and is not listed).
 */
export function listRoutes(app: Express): string[] {
  const out = new Set<string>();
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            if (method !== '_all') out.add(`${method.toUpperCase()} ${(join(prefix, path) || '/').replace(/:(\w+)/g, '{$1}')}`);
          }
        }
      } else if (layer.handle?.stack) {
        const mount = Array.isArray(layer.rawPath) ? layer.rawPath[0]! : (layer.rawPath ?? '/');
        walk(layer.handle.stack, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...out].sort();
}
