import { closeRuntime, createRuntime } from '../runtime';
import { createWorker } from '../worker';
import { startOutboxSweeper } from '../events/sweeper';

/** The Temporal worker: runs checkout, delivery and refund workflows and their activities. */
async function main(): Promise<void> {
  const deps = await createRuntime();
  const { worker, connection } = await createWorker({
    deps,
    workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH || undefined,
  });
  deps.logger.info({ taskQueue: deps.config.taskQueue, temporal: deps.config.temporalAddress }, 'worker started');
  const stopSweeper = startOutboxSweeper(deps, deps.config.outboxSweepMs);
  // worker.run() resolves after SIGINT/SIGTERM once in-flight tasks are drained.
  await worker.run();
  await stopSweeper();
  await connection.close();
  await closeRuntime(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
