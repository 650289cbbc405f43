// The SDK package: its generated types match the OpenAPI document, and `npm pack` ships the build.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('the SDK package', () => {
  // openapi-typescript is an ES module that jest's module system cannot load: the generator runs as
  // `npm run generate:sdk` does, printing instead of writing.
  it('has generated types that match the OpenAPI document (run `npm run generate:sdk` when this fails)', () => {
    const fresh = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'generate-sdk.ts'), '--stdout'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    const committed = readFileSync(join(ROOT, 'sdk', 'src', 'generated', 'api.ts'), 'utf8');
    expect(fresh.length).toBeGreaterThan(1000);
    expect(fresh === committed).toBe(true);
  });

  it('packs its build: the compiled modules and their type declarations, no sources', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=false'], { cwd: join(ROOT, 'sdk'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const files = (packed.files as Array<{ path: string }>).map((file) => file.path).sort();
    expect(packed.name).toBe('@payments-service/sdk');
    for (const built of ['dist/index.js', 'dist/index.d.ts', 'dist/webhooks.js', 'dist/signature.js', 'dist/client.js', 'dist/generated/api.d.ts']) expect(files).toContain(built);
    expect(files.filter((file) => file.startsWith('src/') || file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });
});
