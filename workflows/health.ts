import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// A health probe must answer quickly or not at all: one short attempt, no retries.
const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 1 },
});

/** Proves end to end that a worker polls the task queue and its activities reach the database. */
export async function workerHealthWorkflow(): Promise<{ database: 'ok' }> {
  await checkDatabase();
  return { database: 'ok' };
}
