import type { Config, WorkerRole } from '../config';
import type { EventType } from '../domain/event-types';

/**
 * Work runs on one of two task queues. The task queue (TEMPORAL_TASK_QUEUE) carries what someone
 * waits for: a checkout's own workflow (its attempts), refunds, subscriptions, webhook retries of
 * what those did. The background task queue (TEMPORAL_BACKGROUND_TASK_QUEUE) carries what a timer
 * causes: a checkout's expiry workflow and the delivery of checkout.expired. A worker of each role
 * polls its own queue in its own process (WORKER_ROLE), so a wave of expiries takes CPU only from
 * the background worker, which can run at a lower OS priority, and never from an attempt's.
 */
export type TaskQueues = Pick<Config, 'taskQueue' | 'backgroundTaskQueue'>;

/** The task queues a worker of `role` polls: `all` is both, in one process. */
export function roleTaskQueues(queues: TaskQueues, role: WorkerRole): string[] {
  if (role === 'interactive') return [queues.taskQueue];
  if (role === 'background') return [queues.backgroundTaskQueue];
  return [queues.taskQueue, queues.backgroundTaskQueue];
}

/** Whether a worker of `role` runs the periodic sweeps (outbox, expiry, reconciler, mail, idempotency keys). */
export function roleRunsSweeps(role: WorkerRole): boolean {
  return role !== 'interactive';
}

/** Events whose deliveries are background work: a timer caused them, and no customer waits on them. */
const BACKGROUND_DELIVERIES: ReadonlySet<string> = new Set<EventType>(['checkout.expired']);

/**
 * The task queue of an event's delivery workflows (its retries, resends and replays alike), by its
 * type: an event's every delivery series runs on the same queue.
 */
export function deliveryTaskQueue(queues: TaskQueues, eventType: string): string {
  return BACKGROUND_DELIVERIES.has(eventType) ? queues.backgroundTaskQueue : queues.taskQueue;
}
