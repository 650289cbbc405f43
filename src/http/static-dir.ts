import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a folder of static files lives: beside the module in the source tree, or, from the
 * production build (dist/src/...), back in src/ since the build does not copy them.
 * `sourceDir` is the module's folder relative to the repository (e.g. `src/dashboards/kit`).
 */
export function findStaticDir(moduleDir: string, sourceDir: string, marker: string): string {
  const built = moduleDir.split(path.sep).lastIndexOf('dist');
  const root = built >= 0 ? moduleDir.split(path.sep).slice(0, built).join(path.sep) : moduleDir;
  const candidates = [path.join(moduleDir, 'static'), path.resolve(root, sourceDir, 'static')];
  const found = candidates.find((dir) => existsSync(path.join(dir, marker)));
  if (!found) throw new Error(`static files not found (looked for ${marker} in ${candidates.join(', ')})`);
  return found;
}
