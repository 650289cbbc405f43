import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../src/app';
import type { AppDeps } from '../../src/app-deps';
import { loadConfig } from '../../src/config';
import { Sealer } from '../../src/crypto';
import { createLogger } from '../../src/logger';
import { createDb } from '../../src/storage/db';
import { createTemporalClient } from '../../src/temporal/client';
import { createWorker } from '../../src/worker';
import { startOutboxSweeper } from '../../src/events/sweeper';
import type { HostResolver } from '../../src/webhooks/target';

// The SDK's own worker logs (state changes) would drown test output; errors still show.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed by an earlier startService in this file.
}

export interface Service {
  baseUrl: string;
  deps: AppDeps;
  taskQueue: string;
  adminToken: string;
  /** Stops the in-process worker (to simulate a crash or restart); returns a function to start it again. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** The in-process worker while it runs (its state backs the worker health endpoint). */
  currentWorker(): Worker | null;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** Integration files that need no workflows can skip the worker. */
  worker?: boolean;
  /** Resolves webhook hosts for the API and the worker (DNS-rebinding tests control the answers). */
  resolveHost?: HostResolver;
}

/**
 * One environment per test file: the real app on a free port and a real worker on a task
 * queue of its own, against the run's database and Temporal server (from the global setup).
 */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const taskQueue = `test-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    DATA_ENCRYPTION_KEY: 'test-data-encryption-key-0123456789',
    WEBHOOK_RETRY_INITIAL_MS: '200',
    OUTBOX_SWEEP_MS: '500',
    // Errors show: a 500 in a test prints its cause.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...options.env,
  });
  const db = createDb(config.databaseUrl, { max: 5 });
  const temporal = await createTemporalClient(config.temporalAddress, config.temporalNamespace);
  const deps: AppDeps = { config, db, temporal, sealer: new Sealer(config.dataEncryptionKey), logger: createLogger(config.logLevel), resolveHost: options.resolveHost };

  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.apiBaseUrl = baseUrl;
  config.walletBaseUrl = baseUrl;

  type Running = { worker: Worker; done: Promise<void>; close: () => Promise<void>; stopSweeper: () => Promise<void> };
  let running: Running | null = null;
  const startWorker = async () => {
    const { worker, connection } = await createWorker({
      deps,
      taskQueue,
      workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH,
      maxCachedWorkflows: 0,
    });
    running = { worker, done: worker.run(), close: () => connection.close(), stopSweeper: startOutboxSweeper(deps, config.outboxSweepMs) };
  };
  const stopWorker = async () => {
    if (!running) return;
    const current: Running = running;
    running = null;
    await current.stopSweeper();
    current.worker.shutdown();
    await current.done;
    await current.close();
  };
  if (options.worker !== false) await startWorker();

  return {
    baseUrl,
    deps,
    taskQueue,
    adminToken: config.adminToken,
    stopWorker,
    startWorker,
    currentWorker: () => (running as Running | null)?.worker ?? null,
    async stop() {
      await stopWorker();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temporal.connection.close();
      await db.destroy();
    },
  };
}
