import { temporal as proto } from '@temporalio/proto';
import type { AppDeps } from '../app-deps';
import { withinDeadline } from '../deadline';
import { pingDatabase } from '../storage/db';
import { liveWorkers } from '../storage/worker-heartbeats';
import { HEARTBEAT } from './heartbeat';

/** A hung dependency must not hang the probe. */
const PROBE_DEADLINE_MS = 2000;

/**
 * Temporal lists a worker's pollers for five minutes after their last poll, so a worker that died
 * (or stopped) still looked like one polling; a live worker's pollers poll at least once a minute
 * (the server's long poll). The margin covers a modest clock difference with the Temporal server.
 */
const POLLED_WITHIN_MS = 90_000;

function polledRecently(lastAccess: { seconds?: unknown; nanos?: number | null } | null | undefined): boolean {
  if (!lastAccess) return true; // no time given: the server listed it as polling
  const at = Number(lastAccess.seconds ?? 0) * 1000 + (lastAccess.nanos ?? 0) / 1e6;
  return Date.now() - at < POLLED_WITHIN_MS;
}

/** A task queue's workers, as Temporal and their heartbeats see them. */
export interface QueueWorkers {
  /**
   * Workers polling the task queue recently, for its workflow tasks and for its activity tasks
   * alike (the smaller count): a payment needs both (a withdrawal's hold and every charge's
   * settlement are activities). A worker's two kinds of polls come back on their own after an
   * outage (the SDK retries each poll on its own, pausing up to about 10 s).
   */
  pollers: number;
  /** Workers whose heartbeat is recent (HEARTBEAT): a stopped worker drops out within seconds, where its pollers stay listed. */
  workers: number;
}

export interface Readiness {
  database: boolean;
  temporalServer: boolean;
  /** The task queue's (interactive work: attempts, refunds, subscriptions). */
  interactive: QueueWorkers;
  /** The background task queue's (expiries, checkout.expired deliveries); the sweeps run beside them. */
  background: QueueWorkers;
}

/** Asks the database, Temporal, and Temporal and the heartbeats about each task queue's workers, each within the probe's deadline. */
export async function checkReadiness({ db, temporal, config }: Pick<AppDeps, 'db' | 'temporal' | 'config'>): Promise<Readiness> {
  const deadline = () => Date.now() + PROBE_DEADLINE_MS;
  const pollersOf = (taskQueue: string, taskQueueType: proto.api.enums.v1.TaskQueueType) =>
    temporal
      .withDeadline(deadline(), () => temporal.workflowService.describeTaskQueue({ namespace: config.temporalNamespace, taskQueue: { name: taskQueue }, taskQueueType }))
      .then((answer) => (answer.pollers ?? []).filter((poller) => polledRecently(poller.lastAccessTime)).length, () => 0);
  const queueWorkers = async (taskQueue: string): Promise<QueueWorkers> => {
    const [workflowPollers, activityPollers, workers] = await Promise.all([
      pollersOf(taskQueue, proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
      pollersOf(taskQueue, proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
      withinDeadline(liveWorkers(db, taskQueue, HEARTBEAT.liveWithinSeconds).catch(() => 0), PROBE_DEADLINE_MS, 0),
    ]);
    return { pollers: Math.min(workflowPollers, activityPollers), workers };
  };
  const [database, temporalServer, interactive, background] = await Promise.all([
    // Knex waits up to a minute for a connection, and a PostgreSQL that accepts TCP but never
    // answers (hung, or a stalled network) holds one that long: the probe answers at its deadline.
    withinDeadline(pingDatabase(db).then(() => true, () => false), PROBE_DEADLINE_MS, false),
    temporal.withDeadline(deadline(), () => temporal.workflowService.getSystemInfo({})).then(() => true, () => false),
    queueWorkers(config.taskQueue),
    queueWorkers(config.backgroundTaskQueue),
  ]);
  return { database, temporalServer, interactive, background };
}
