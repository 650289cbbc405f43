/**
 * A benchmark child process: the API server or the Temporal worker, built exactly as
 * src/entry/api.ts and src/entry/worker.ts build them (createRuntime with the env it is given; the
 * worker in the role WORKER_ROLE gives it), except that the API binds 127.0.0.1 on a free port and
 * both report readiness over IPC.
 *
 *   fork('dist/bench/support/service-process.js', ['api' | 'worker'])   (compiled by bench/run.sh)
 *
 * The load generator runs in the parent, so it never shares an event loop with the server.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import type { AppDeps } from '../../src/app-deps';
import { closeRuntime, createRuntime, loadConfigOrExit } from '../../src/runtime';
import { createRoleWorkers, startWorkerSweeps, temporalMetricsRuntimeOptions } from '../../src/worker';
import { startWorkerHttp } from '../../src/observability/worker-http';

export type ServiceRole = 'api' | 'worker';
export type ServiceMessage = { type: 'ready'; role: ServiceRole; port?: number } | { type: 'failed'; role: ServiceRole; error: string };

const role = process.argv[2] as ServiceRole;
let stopping: Promise<void> | null = null;

function send(message: ServiceMessage): void {
  if (process.send) process.send(message);
}

async function startApi(deps: AppDeps): Promise<() => Promise<void>> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  deps.config.apiBaseUrl = `http://127.0.0.1:${port}`;
  deps.config.walletBaseUrl = deps.config.apiBaseUrl;
  send({ type: 'ready', role, port });
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  };
}

async function startWorker(deps: AppDeps): Promise<() => Promise<void>> {
  const workers = await createRoleWorkers({ deps, workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH || undefined }, deps.config.workerRole);
  const done = workers.run();
  // The worker's sweeps (its role's) and its health and metrics port (on 127.0.0.1) run beside it, as in src/entry/worker.ts.
  const stopSweeps = startWorkerSweeps(deps, deps.config.workerRole);
  const http = await startWorkerHttp(workers, 0, '127.0.0.1');
  send({ type: 'ready', role, port: http.port });
  return async () => {
    http.server.close();
    await stopSweeps();
    workers.shutdown();
    await done;
    await workers.connection.close();
  };
}

async function main(): Promise<void> {
  if (role !== 'api' && role !== 'worker') throw new Error(`unknown role ${String(role)} (expected api or worker)`);
  // The SDK's own state-change logs would drown the benchmark output; warnings still show.
  const config = loadConfigOrExit();
  // The worker serves the SDK's own metrics where configured, as src/entry/worker.ts does.
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [], ...(role === 'worker' ? temporalMetricsRuntimeOptions(config) : {}) });
  const deps = await createRuntime(config);
  const stopRole = role === 'api' ? await startApi(deps) : await startWorker(deps);

  const stop = () => {
    stopping ??= (async () => {
      // Bounded: a drain that hangs must not keep the benchmark from finishing.
      const timer = setTimeout(() => process.exit(1), 15_000);
      await stopRole();
      await closeRuntime(deps);
      clearTimeout(timer);
      process.exit(0);
    })();
  };
  process.on('message', (message) => {
    if (message === 'stop') stop();
  });
  // The parent went away (crash, kill -9): never outlive it.
  process.on('disconnect', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  send({ type: 'failed', role, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  console.error(error);
  process.exit(1);
});
