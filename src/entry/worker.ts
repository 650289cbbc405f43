import { Runtime } from '@temporalio/worker';
import { closeRuntime, createRuntime, loadConfigOrExit } from '../runtime';
import { createRoleWorkers, startWorkerSweeps, temporalMetricsRuntimeOptions } from '../worker';
import { settleFirstDeliveries } from '../events/first-delivery';
import { startWorkerHttp } from '../observability/worker-http';
import { roleTaskQueues } from '../temporal/task-queues';

/**
 * The Temporal worker: runs checkout, delivery and refund workflows and their activities. Its
 * role (WORKER_ROLE) says which task queues it polls and whether it runs the sweeps (src/worker.ts).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // Temporal's own worker metrics, where configured: installed before any connection is made.
  if (config.temporalMetricsBindAddress) Runtime.install(temporalMetricsRuntimeOptions(config));
  const deps = await createRuntime(config, 'payments-worker');
  const workers = await createRoleWorkers({ deps, tracing: deps.tracing, workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH || undefined }, config.workerRole);
  const http = await startWorkerHttp(workers, config.workerHttpPort, config.host);
  const taskQueues = roleTaskQueues(config, config.workerRole);
  deps.logger.info({ role: config.workerRole, taskQueues, temporal: config.temporalAddress, healthPort: http.port }, 'worker started');
  const stopSweeps = startWorkerSweeps(deps, config.workerRole);
  // run() resolves after SIGINT/SIGTERM once in-flight tasks are drained.
  await workers.run();
  http.server.close();
  await stopSweeps();
  await settleFirstDeliveries(); // first webhook attempts the last activities began
  await workers.connection.close();
  await closeRuntime(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
