/** The workflows of the floors that run one: checkout create's and the wallet attempt's. */
import { condition, defineSignal, defineUpdate, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

export const floorAttemptUpdate = defineUpdate<string, [string]>('floorAttempt');
export const floorCloseSignal = defineSignal('floorClose');

const { insertFloorRow } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

/**
 * Checkout create's floor with its first task: what a checkout's workflow cannot skip when it
 * starts, its expiry timer (a checkout's default lifetime, 30 minutes), and nothing else.
 */
export async function floorExpiringWorkflow(): Promise<void> {
  await sleep('30 minutes');
}

/**
 * The wallet attempt's floor: a workflow that holds open like a checkout and answers updates,
 * each handler running one local activity that does one INSERT. Nothing else.
 */
export async function floorCheckoutWorkflow(): Promise<void> {
  let closed = false;
  setHandler(floorAttemptUpdate, (attemptId) => insertFloorRow(attemptId));
  setHandler(floorCloseSignal, () => void (closed = true));
  await condition(() => closed);
}
