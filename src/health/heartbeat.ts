import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { beat, clearOldHeartbeats, forgetWorker } from '../storage/worker-heartbeats';

/** How often a worker writes its heartbeat, and how old the newest may be for the API to call the worker live. */
export const HEARTBEAT = { everyMs: 2_000, liveWithinSeconds: 6 } as const;

/**
 * Writes this worker's heartbeat, one per task queue it polls, every HEARTBEAT.everyMs until
 * stopped; the stop removes them, so readiness follows a worker that stops within one probe, and
 * one that is killed within seconds.
 */
export function startHeartbeat(deps: { db: Db; logger: Logger }, taskQueues: string[]): () => Promise<void> {
  const self = `${process.pid}-${randomUUID()}`;
  const beats = taskQueues.map((taskQueue, i) => ({ id: i === 0 ? self : `${self}-${i}`, taskQueue }));
  const tick = () =>
    Promise.all(beats.map(({ id, taskQueue }) => beat(deps.db, id, taskQueue))).catch((error: unknown) => deps.logger.warn({ err: error }, 'worker heartbeat failed; will retry'));
  void tick();
  void clearOldHeartbeats(deps.db).catch(() => undefined);
  const timer = setInterval(() => void tick(), HEARTBEAT.everyMs);
  return async () => {
    clearInterval(timer);
    await Promise.all(beats.map(({ id }) => forgetWorker(deps.db, id).catch(() => undefined)));
  };
}
