import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';

/** The stripe-mock release scripts/lib.sh builds (find_or_build_stripe_mock); keep the two in step. */
export const STRIPE_MOCK_VERSION = '0.203.0';

export interface StripeMock {
  process: ChildProcess;
  host: string;
  port: number;
}

/** STRIPE_MOCK_PATH (set by `npm test`), else the binary scripts/lib.sh caches. */
function stripeMockPath(): string {
  if (process.env.STRIPE_MOCK_PATH) return process.env.STRIPE_MOCK_PATH;
  const cacheRoot = process.env.PAYMENTS_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'payments-service');
  const cached = path.join(cacheRoot, `stripe-mock-${STRIPE_MOCK_VERSION}`, 'stripe-mock');
  if (!existsSync(cached)) throw new Error(`stripe-mock is not built: run the tests with \`npm test\` (it builds ${cached}) or set STRIPE_MOCK_PATH`);
  return cached;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Starts stripe-mock (plain HTTP) on a free port and waits until it accepts connections. */
export async function startStripeMock(): Promise<StripeMock> {
  const host = '127.0.0.1';
  const port = await freePort();
  // Its HTTPS listener is on by default at a fixed port: moved to a free one, so two runs never collide.
  const httpsPort = await freePort();
  const child = spawn(stripeMockPath(), ['-http-addr', `${host}:${port}`, '-https-addr', `${host}:${httpsPort}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 30_000;
  while (!(await accepts(host, port))) {
    if (child.exitCode !== null) throw new Error(`stripe-mock exited (${child.exitCode}): ${output}`);
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`stripe-mock did not listen on ${host}:${port} within 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { process: child, host, port };
}

export async function stopStripeMock(mock: StripeMock): Promise<void> {
  if (mock.process.exitCode !== null) return;
  const exited = new Promise((resolve) => mock.process.once('exit', resolve));
  mock.process.kill();
  await exited;
}
