import { DefaultLogger, Runtime } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createApp } from '../../src/app';
import { answerClientErrors } from '../../src/http/client-errors';
import type { AppDeps } from '../../src/app-deps';
import { loadConfig } from '../../src/config';
import { Sealer } from '../../src/crypto';
import { createLogger } from '../../src/logger';
import { createDb, dropDatabase } from '../../src/storage/db';
import { closeCredentialCache } from '../../src/http/credential-cache';
import { createTemporalClient } from '../../src/temporal/client';
import { createRoleWorkers, startWorkerSweeps, type RoleWorkers } from '../../src/worker';
import { createHoldActivities } from '../../activities/holds';
import { settleFirstDeliveries } from '../../src/events/first-delivery';
import type { HostResolver } from '../../src/webhooks/target';
import { startTracing } from '../../src/observability/tracing';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ChildService } from './child-service';
import { checkingAnswers } from './openapi-answers';
import { RoundRobinProxy } from './round-robin-proxy';
import { freePort } from './free-port';
import { createTestDatabase } from './test-database';

// The SDK's own worker logs (state changes) would drown test output; errors still show.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed by an earlier startService in this file.
}

export interface Service {
  /** The API's address: with replicas, a round-robin proxy in front of every API process. */
  baseUrl: string;
  /**
   * The in-process API's own address, past the proxy: where a test sends the requests that must
   * meet the dependencies it changed in this process (a patched Temporal client, say).
   */
  ownUrl: string;
  deps: AppDeps;
  taskQueue: string;
  /** The task queue of background work (expiry workflows, checkout.expired deliveries): `<taskQueue>-background`. */
  backgroundTaskQueue: string;
  adminToken: string;
  /** The service's own database: every process of the service uses it, and stop() drops it. */
  databaseUrl: string;
  /** The environment the service's configuration came from, for child processes of the same service. */
  childEnv: NodeJS.ProcessEnv;
  /** With replicas: the proxy in front of the API processes (it counts the requests each served). */
  proxy: RoundRobinProxy | null;
  /** Stops every worker (to simulate a crash or restart); returns a function to start it again. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** The in-process worker (role all: one Temporal worker per task queue) while it runs; its state backs the worker health endpoint. */
  currentWorker(): RoleWorkers | null;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** Integration files that need no workflows can skip the worker. */
  worker?: boolean;
  /**
   * The in-process worker's sweepers (outbox, expiry, reconciler, mail, heartbeat); default on.
   * Off where a test counts this process's queries, which theirs would join.
   */
  sweeps?: boolean;
  /**
   * API processes and worker processes (each with its outbox sweeper), as a deployment scales
   * out: the first of each runs in this process, the others are child processes of their real
   * entry points, and the APIs sit behind one round-robin address. Default: TEST_REPLICAS, else
   * 2 against the cluster (`npm run test:cluster`) and 1 otherwise.
   */
  replicas?: number;
  /** Resolves webhook hosts for the API and the worker (DNS-rebinding tests control the answers). */
  resolveHost?: HostResolver;
  /** Collects the spans of the in-process API and worker (tracing tests; one replica); tracing is off without it. */
  spanExporter?: SpanExporter;
  /** Default SERVICE_WORKFLOW_CACHE. The tracing test keeps more workflows cached: see test/tracing.test.ts. */
  maxCachedWorkflows?: number;
  /**
   * A migrated database of the test's own, on a server of its own (the outage test stops that
   * server): used instead of a copy of the run's template; stop() drops it as it drops a copy.
   */
  databaseUrl?: string;
}

/**
 * The service's worker keeps a small workflow cache, not 0: an attempt runs as a local activity
 * inside its workflow task, and with a zero cache the SDK evicts a run whose local activity is
 * still running as soon as another checkout's task arrives (many pay at once here), dropping it.
 * Determinism is still checked on every task where runs are one at a time (the workflow tests
 * with fake activities keep 0), and by replaying every recorded history (test/workflows/replay.test.ts).
 */
export const SERVICE_WORKFLOW_CACHE = 20;

export function defaultReplicas(): number {
  return Number(process.env.TEST_REPLICAS ?? (process.env.TEST_TEMPORAL === 'cluster' ? 2 : 1));
}

/**
 * One environment per test file: the real app on a free port and a real worker on a task
 * queue of its own, against a database of its own (a copy of the run's migrated template, see
 * test/support/test-database.ts) and the run's Temporal server (from the global setup). Its
 * sweepers see only its own rows, so they start only its own workflows on its own task queue.
 */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const taskQueue = `test-${randomUUID()}`;
  // A resolver and a span exporter are objects of this process: child processes would resolve for
  // real and keep their spans to themselves, so a test that controls DNS answers or collects the
  // trace runs one API and one worker.
  const replicas = options.resolveHost || options.spanExporter ? 1 : (options.replicas ?? defaultReplicas());
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    DATA_ENCRYPTION_KEY: 'test-data-encryption-key-0123456789',
    WEBHOOK_RETRY_INITIAL_MS: '200',
    OUTBOX_SWEEP_MS: '500',
    // The expiry sweep races every checkout's timer (no grace), so every test that lets a checkout
    // expire also walks the two-writer rule of src/checkouts/expiry.ts.
    EXPIRY_SWEEP_MS: '200',
    EXPIRY_SWEEP_GRACE_MS: '0',
    // Every test sends from 127.0.0.1, so the wrong admin tokens one test sends would throttle the
    // next test's sign-ins; the throttle's own tests set a low limit and their own addresses
    // (test/http/admin/admin-token-throttle.test.ts).
    ADMIN_TOKEN_MAX_FAILURES: '100000',
    // Errors show: a 500 in a test prints its cause.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...options.env,
    DATABASE_URL: databaseUrl,
  };
  const config = loadConfig(env);
  const db = createDb(config.databaseUrl, { max: 5 });
  const tracing = startTracing({ serviceName: 'payments-test', otlpEndpoint: null, exporter: options.spanExporter });
  const temporal = await createTemporalClient(config.temporalAddress, config.temporalNamespace, { traced: tracing.enabled });
  const base = { config, db, temporal, sealer: new Sealer(config.dataEncryptionKey), logger: createLogger(config.logLevel), resolveHost: options.resolveHost, tracing };
  const deps: AppDeps = { ...base, holdHandshake: createHoldActivities(base) };

  const server: Server = await new Promise((resolve) => {
    const s = createServer(checkingAnswers(createApp(deps))).listen(0, '127.0.0.1', () => resolve(s));
    answerClientErrors(s, deps.logger); // as src/entry/api.ts does
  });
  const ownUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let baseUrl = ownUrl;
  let proxy: RoundRobinProxy | null = null;
  if (replicas > 1) {
    proxy = await new RoundRobinProxy().start();
    proxy.add(ownUrl);
    baseUrl = proxy.url;
  }
  config.apiBaseUrl = baseUrl;
  config.walletBaseUrl = baseUrl;
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    // Each child's pool is small: a test's processes and the cluster share PostgreSQL's 100 connections.
    DATABASE_POOL_MAX: env.DATABASE_POOL_MAX ?? '5',
    API_BASE_URL: baseUrl,
    WALLET_BASE_URL: baseUrl,
    DATA_ENCRYPTION_KEY: config.dataEncryptionKey,
    // Each worker child serves health and metrics on a port of its own.
    WORKER_HTTP_PORT: '0',
    ADMIN_TOKEN: config.adminToken,
  };
  const forward = { logger: deps.logger, level: config.logLevel };
  const apiChildren = await Promise.all(
    Array.from({ length: replicas - 1 }, async () => {
      const port = await freePort();
      const child = new ChildService('api', { ...childEnv, PORT: String(port) }, forward);
      await child.start();
      proxy!.add(`http://127.0.0.1:${port}`);
      return child;
    }),
  );
  const workerChildren = Array.from({ length: replicas - 1 }, () => new ChildService('worker', childEnv, forward));

  type Running = { worker: RoleWorkers; done: Promise<void>; close: () => Promise<void>; stopSweeper: () => Promise<void> };
  let running: Running | null = null;
  const startWorker = async () => {
    // Both task queues in this process (WORKER_ROLE's default), as a single-process deployment runs.
    const worker = await createRoleWorkers(
      { deps, workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH, maxCachedWorkflows: options.maxCachedWorkflows ?? SERVICE_WORKFLOW_CACHE, tracing },
      'all',
    );
    running = { worker, done: worker.run(), close: () => worker.connection.close(), stopSweeper: options.sweeps === false ? async () => undefined : startWorkerSweeps(deps) };
    await Promise.all(workerChildren.map((child) => child.start()));
  };
  const stopWorker = async () => {
    if (!running) return;
    const current: Running = running;
    running = null;
    await Promise.all(workerChildren.map((child) => child.stop()));
    await current.stopSweeper();
    current.worker.shutdown();
    await current.done;
    await settleFirstDeliveries();
    await current.close();
  };
  if (options.worker !== false) await startWorker();

  return {
    baseUrl,
    ownUrl,
    deps,
    taskQueue,
    backgroundTaskQueue: config.backgroundTaskQueue,
    adminToken: config.adminToken,
    databaseUrl,
    childEnv,
    proxy,
    stopWorker,
    currentWorker: () => (running as Running | null)?.worker ?? null,
    startWorker,
    async stop() {
      await stopWorker();
      await Promise.all(apiChildren.map((child) => child.stop()));
      await proxy?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temporal.connection.close();
      await closeCredentialCache(db);
      await db.destroy();
      await tracing.shutdown();
      // Last, once every pool of the service is closed (FORCE ends any connection still open).
      await dropDatabase(databaseUrl);
    },
  };
}

