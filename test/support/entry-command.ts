import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The service's own sources: a compiled entry older than any of them is stale. */
const SOURCE_DIRS = ['src', 'workflows', 'activities', 'sdk/src'];

let compiledIsFresh: boolean | undefined;

/** The newest modification time of a file under `dir` (0 for none). */
function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/ was compiled after the last change to the service's sources (`npm test` compiles it first). */
function compiledFresh(): boolean {
  if (compiledIsFresh === undefined) {
    const stamp = path.join(ROOT, 'dist/src/entry/api.js');
    compiledIsFresh = fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= Math.max(...SOURCE_DIRS.map((dir) => newestIn(path.join(ROOT, dir))));
  }
  return compiledIsFresh;
}

/**
 * The arguments for `node` that run one of the service's entry points (`src/entry/<name>.ts`) as
 * its own process: the compiled file in dist/ when it is up to date, which starts in about half
 * the time, else the source under tsx (a test run by hand after an edit, without `npm test`).
 */
export function entryArgs(name: 'api' | 'worker'): string[] {
  if (compiledFresh()) return [path.join(ROOT, 'dist/src/entry', `${name}.js`)];
  return ['--import', 'tsx', path.join(ROOT, 'src/entry', `${name}.ts`)];
}
