import type { Db } from './db';

/** A worker's heartbeat (worker_heartbeats): written every few seconds while it runs, removed when it stops. */
export async function beat(db: Db, workerId: string, taskQueue: string): Promise<void> {
  await db('worker_heartbeats').insert({ id: workerId, task_queue: taskQueue, beat_at: db.fn.now() }).onConflict('id').merge(['beat_at']);
}

/** A worker that stopped cleanly takes its heartbeat with it; a killed one's row ages out (and is cleared after an hour). */
export async function forgetWorker(db: Db, workerId: string): Promise<void> {
  await db('worker_heartbeats').where({ id: workerId }).delete();
}

export async function clearOldHeartbeats(db: Db): Promise<void> {
  await db('worker_heartbeats').where('beat_at', '<', db.raw("now() - interval '1 hour'")).delete();
}

/** How many workers of the task queue beat within the last `withinSeconds`. */
export async function liveWorkers(db: Db, taskQueue: string, withinSeconds: number): Promise<number> {
  const row = await db('worker_heartbeats')
    .where({ task_queue: taskQueue })
    .andWhere('beat_at', '>', db.raw('now() - make_interval(secs => ?)', [withinSeconds]))
    .count<{ count: string }[]>('* as count')
    .first();
  return Number(row?.count ?? 0);
}
