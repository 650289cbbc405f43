import { Runtime } from '@temporalio/worker';
import { closeRuntime, createRuntime, loadConfigOrExit } from '../runtime';
import { createWorker, startWorkerSweeps, temporalMetricsRuntimeOptions } from '../worker';
import { settleFirstDeliveries } from '../events/first-delivery';
import { startWorkerHttp } from '../observability/worker-http';

/** The Temporal worker: runs checkout, delivery and refund workflows and their activities. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // Temporal's own worker metrics, where configured: installed before any connection is made.
  if (config.temporalMetricsBindAddress) Runtime.install(temporalMetricsRuntimeOptions(config));
  const deps = await createRuntime(config, 'payments-worker');
  const { worker, connection } = await createWorker({
    deps,
    tracing: deps.tracing,
    workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH || undefined,
  });
  const http = await startWorkerHttp(worker, config.workerHttpPort, config.host);
  deps.logger.info({ taskQueue: config.taskQueue, temporal: config.temporalAddress, healthPort: http.port }, 'worker started');
  const stopSweeps = startWorkerSweeps(deps);
  // worker.run() resolves after SIGINT/SIGTERM once in-flight tasks are drained.
  await worker.run();
  http.server.close();
  await stopSweeps();
  await settleFirstDeliveries(); // first webhook attempts the last activities began
  await connection.close();
  await closeRuntime(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
