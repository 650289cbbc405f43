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

export interface Readiness {
  database: boolean;
  temporalServer: boolean;
  /** Workers polling the task queue recently. */
  pollers: number;
  /** Workers whose heartbeat is recent (HEARTBEAT): a stopped worker drops out within seconds, where its pollers stay listed. */
  workers: number;
}

/** Asks the database, Temporal, and Temporal about the task queue's pollers, each within the probe's deadline. */
export async function checkReadiness({ db, temporal, config }: Pick<AppDeps, 'db' | 'temporal' | 'config'>): Promise<Readiness> {
  const deadline = () => Date.now() + PROBE_DEADLINE_MS;
  const [database, temporalServer, pollers, workers] = await Promise.all([
    // Knex waits up to a minute for a connection, and a PostgreSQL that accepts TCP but never
    // answers (hung, or a stalled network) holds one that long: the probe answers at its deadline.
    withinDeadline(pingDatabase(db).then(() => true, () => false), PROBE_DEADLINE_MS, false),
    temporal.withDeadline(deadline(), () => temporal.workflowService.getSystemInfo({})).then(() => true, () => false),
    temporal
      .withDeadline(deadline(), () =>
        temporal.workflowService.describeTaskQueue({
          namespace: config.temporalNamespace,
          taskQueue: { name: config.taskQueue },
          taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      )
      .then((answer) => (answer.pollers ?? []).filter((poller) => polledRecently(poller.lastAccessTime)).length, () => 0),
    withinDeadline(liveWorkers(db, config.taskQueue, HEARTBEAT.liveWithinSeconds).catch(() => 0), PROBE_DEADLINE_MS, 0),
  ]);
  return { database, temporalServer, pollers, workers };
}
