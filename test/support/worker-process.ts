import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Service } from './harness';

/**
 * The worker as a separate OS process (the real entry point), so a test can kill it with
 * SIGKILL in the middle of work, as a crash would, and start a fresh one.
 */
export class WorkerProcess {
  private child: ChildProcess | null = null;
  output = '';

  constructor(private readonly service: Service, private readonly env: Record<string, string> = {}) {}

  async start(): Promise<void> {
    const root = path.resolve(__dirname, '../..');
    const config = this.service.deps.config;
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/entry/worker.ts')], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: config.databaseUrl,
        TEMPORAL_ADDRESS: config.temporalAddress,
        TEMPORAL_NAMESPACE: config.temporalNamespace,
        TEMPORAL_TASK_QUEUE: this.service.taskQueue,
        WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH ?? '',
        WEBHOOK_RETRY_INITIAL_MS: String(config.webhookRetryInitialMs),
        OUTBOX_SWEEP_MS: String(config.outboxSweepMs),
        ADMIN_TOKEN: config.adminToken,
        DATA_ENCRYPTION_KEY: config.dataEncryptionKey,
        WORKER_HTTP_PORT: '0',
        LOG_LEVEL: 'info',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    const deadline = Date.now() + 30_000;
    while (!this.output.includes('worker started')) {
      if (this.child.exitCode !== null) throw new Error(`worker exited early:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`worker did not start:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL: no shutdown, no draining, exactly like a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }

  async stop(): Promise<void> {
    await this.kill();
  }
}
