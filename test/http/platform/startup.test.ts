import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { dropDatabase } from '../../../src/storage/db';
import { createTestDatabase } from '../../support/test-database';
import { entryArgs } from '../../support/entry-command';

/**
 * The API entry point as an operator starts it (a real process, real database and Temporal):
 * where it listens by default, what it refuses outside development, and that no token value
 * reaches its output.
 */
const ROOT = path.resolve(__dirname, '../../..');

/** The processes this file starts share one database of their own (no service starts here). */
let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
});
afterAll(async () => {
  if (databaseUrl) await dropDatabase(databaseUrl);
});

interface Run {
  code: number | null;
  output: string;
  listening: { address: string; port: number } | null;
}

/** Starts src/entry/api.ts and waits until it listens (then stops it) or exits by itself. */
async function runApi(env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, entryArgs('api'), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening: Run['listening'] = null;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const line of output.split('\n')) {
      if (!line.includes('"API listening"')) continue;
      const entry = JSON.parse(line) as { address: string; port: number };
      listening = { address: entry.address, port: entry.port };
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const deadline = Date.now() + 40_000;
  while (!listening && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (child.exitCode === null) child.kill('SIGTERM');
  const code = await exited;
  return { code, output, listening };
}

describe('safe defaults at start-up', () => {
  it('listens on 127.0.0.1 in development unless HOST says otherwise, and never prints the dev token', async () => {
    const dev = await runApi({ NODE_ENV: 'development' });
    expect(dev.listening?.address).toBe('127.0.0.1');
    expect(dev.output).toContain('ADMIN_TOKEN not set');
    expect(dev.output).not.toContain('dev-admin-token');

    const everywhere = await runApi({ NODE_ENV: 'development', HOST: '0.0.0.0' });
    expect(everywhere.listening?.address).toBe('0.0.0.0');
  });

  it.each([
    [{}, ['ADMIN_TOKEN', 'DATA_ENCRYPTION_KEY', 'SMTP_URL']],
    [{ ADMIN_TOKEN: 'an-operator-admin-token-0001' }, ['DATA_ENCRYPTION_KEY']],
    [{ DATA_ENCRYPTION_KEY: 'an-operator-data-key-00000001' }, ['ADMIN_TOKEN']],
  ])('refuses to start in production with %j and names %j', async (env, missing) => {
    const run = await runApi({ NODE_ENV: 'production', ...env });
    expect(run.listening).toBeNull();
    expect(run.code).toBe(78);
    expect(run.output).toContain('Refusing to start');
    for (const variable of missing) expect(run.output).toMatch(new RegExp(`${variable}: required when NODE_ENV=production`));
    // A configured secret is never echoed back while explaining what is missing.
    for (const value of Object.values(env)) expect(run.output).not.toContain(value);
  });

  it('names the OTLP collector it exports to without the credentials its address may carry', async () => {
    const run = await runApi({ NODE_ENV: 'development', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://tenant-7:an-otlp-password-0003@127.0.0.1:4318' });
    expect(run.listening).not.toBeNull();
    expect(run.output).toContain('OpenTelemetry traces exported over OTLP');
    expect(run.output).toContain('127.0.0.1:4318');
    expect(run.output).not.toContain('an-otlp-password-0003');
  });

  it('starts in production with both secrets, listening on every interface, without printing them', async () => {
    const secrets = { ADMIN_TOKEN: 'an-operator-admin-token-0002', DATA_ENCRYPTION_KEY: 'an-operator-data-key-00000002', SMTP_URL: 'smtp://127.0.0.1:2525' };
    const run = await runApi({ NODE_ENV: 'production', ...secrets });
    expect(run.listening?.address).toBe('0.0.0.0');
    expect(run.output).not.toContain(secrets.ADMIN_TOKEN);
    expect(run.output).not.toContain(secrets.DATA_ENCRYPTION_KEY);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM finishes the request in flight, closes its keep-alive connection and exits at once', async () => {
    const child = spawn(process.execPath, entryArgs('api'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const deadline = Date.now() + 40_000;
      while (!output.includes('"API listening"') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const { port } = JSON.parse(output.split('\n').find((l) => l.includes('"API listening"'))!) as { port: number };

      // A keep-alive client (a load balancer's pooled connection) with a request in flight: its body not yet sent.
      const body = JSON.stringify({ email: 'drain@example.com' });
      const agent = new http.Agent({ keepAlive: true });
      const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/api/v1/customers', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(5)), 300);
        }, 200);
      });
      const answer = await answered;
      const answeredAt = Date.now();
      // The request in flight is answered, and told the connection closes, so the client does not reuse it.
      expect(answer.status).toBe(422); // the contract's answer to a missing API key: the request was read and handled
      expect(answer.connection).toBe('close');
      const code = await exited;
      expect(code).toBe(0);
      // Not held open by the idle keep-alive connection until its timeout (nor forever, by a client that keeps using it).
      expect(Date.now() - answeredAt).toBeLessThan(2_500);
      agent.destroy();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
