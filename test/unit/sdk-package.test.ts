// The SDK package: its generated types match the OpenAPI document, `npm pack` ships the build, and
// the example receiver, copied out of the repository with the packed SDK installed, compiles and runs.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTestHeaders } from '@payments-service/sdk';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/fixtures';

const ROOT = join(__dirname, '..', '..');
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 32 * 1024 * 1024 });

describe('the SDK package', () => {
  // openapi-typescript is an ES module that jest's module system cannot load: the generator runs as
  // `npm run generate:sdk` does, printing instead of writing.
  it('has generated types that match the OpenAPI document (run `npm run generate:sdk` when this fails)', () => {
    const fresh = run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'generate-sdk.ts'), '--stdout'], ROOT);
    const committed = readFileSync(join(ROOT, 'sdk', 'src', 'generated', 'api.ts'), 'utf8');
    expect(fresh.length).toBeGreaterThan(1000);
    expect(fresh === committed).toBe(true);
  });

  it('packs its build: the compiled modules and their type declarations, no sources', () => {
    const [packed] = JSON.parse(run('npm', ['pack', '--dry-run', '--json'], join(ROOT, 'sdk')));
    const files = (packed.files as Array<{ path: string }>).map((file) => file.path).sort();
    expect(packed.name).toBe('@payments-service/sdk');
    for (const built of ['dist/index.js', 'dist/index.d.ts', 'dist/webhooks.js', 'dist/signature.js', 'dist/client.js', 'dist/generated/api.d.ts']) expect(files).toContain(built);
    expect(files.filter((file) => file.startsWith('src/') || (file.endsWith('.ts') && !file.endsWith('.d.ts')))).toEqual([]);
  });

  describe('the example receiver, copied out of the repository', () => {
    const app = mkdtempSync(join(tmpdir(), 'sdk-example-'));
    afterAll(() => rmSync(app, { recursive: true, force: true }));

    it('compiles against the packed SDK and verifies signed deliveries', async () => {
      // As its README says: the tarball from `npm pack`, installed beside the example's own files
      // (unpacked here as npm would, with the SDK's one dependency linked from this checkout).
      const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', app], join(ROOT, 'sdk')));
      const installed = join(app, 'node_modules', '@payments-service', 'sdk');
      mkdirSync(installed, { recursive: true });
      run('tar', ['-xzf', join(app, packed.filename), '-C', installed, '--strip-components=1'], app);
      for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers']) symlinkSync(join(ROOT, 'node_modules', dependency), join(app, 'node_modules', dependency));
      cpSync(join(ROOT, 'examples', 'webhook-receiver', 'server.ts'), join(app, 'server.ts'));

      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      run(process.execPath, [tsc, '--strict', '--target', 'ES2022', '--module', 'commonjs', '--moduleResolution', 'node', '--esModuleInterop', '--skipLibCheck', '--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node', '--outDir', 'out', 'server.ts'], app);

      const port = await freePort();
      const secret = 'wss_example_secret';
      const receiver = spawn(process.execPath, [join(app, 'out', 'server.js')], { cwd: app, env: { ...process.env, PORT: String(port), WEBHOOK_SIGNING_SECRET: secret }, stdio: 'ignore' });
      try {
        const payload = JSON.stringify({ event_id: 'ev_example', data: { id: 'chk_1', type: 'withdrawal', charge: { amount_cents: 700 } }, type: 'checkout.hold' });
        const send = (signedWith: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: payload, headers: generateTestHeaders({ payload, secret: signedWith }) });
        const accepted = await waitFor(() => send(secret).catch(() => undefined), 10_000, 'the example receiver');
        expect(accepted.status).toBe(200);
        expect((await send('wss_someone_else')).status).toBe(400);
      } finally {
        receiver.kill();
      }
    });
  });
});
