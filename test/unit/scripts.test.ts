import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What `npm start` (scripts/start.sh, with scripts/lib.sh) prints: no password or token, ever. */
const ROOT = path.resolve(__dirname, '../..');

/** Runs the start script's migration step as it logs it, with the database URL given. */
function migrationLogLine(databaseUrl: string): string {
  const lines = readFileSync(path.join(ROOT, 'scripts/start.sh'), 'utf8').split('\n');
  const line = lines.find((l) => l.includes('log "migrating the database'))!;
  const run = spawnSync('bash', ['-c', `source scripts/lib.sh; ${line}`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stderr;
}

describe('npm start output', () => {
  it('names the database it migrates without the password in DATABASE_URL', () => {
    const printed = migrationLogLine('postgres://payments:a-db-password-0004@db.internal:5432/payments');
    expect(printed).toContain('db.internal:5432/payments');
    expect(printed).not.toContain('a-db-password-0004');
    expect(migrationLogLine('postgres://postgres@127.0.0.1:5432/payments')).toContain('postgres://postgres@127.0.0.1:5432/payments');
  });
});
