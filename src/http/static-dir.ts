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
