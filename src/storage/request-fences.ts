import type { Db } from './db';

/**
 * A request's fence (migration 032), keyed by the id its request made for one send: `claimed` by
 * the worker that takes its work on, or `answered` by the request that gave up without it.
 */
export type RequestFence = 'claimed' | 'answered';

/**
 * Writes the fence as `state` unless it is written already, and answers the state it holds: one
 * statement, so PostgreSQL decides who came first. A write that meets the other side's uncommitted
 * one waits for its commit (then reads it) or its rollback (then writes).
 */
async function writeFenceFirst(db: Db, fenceId: string, state: RequestFence): Promise<RequestFence> {
  const { rows } = await db.raw<{ rows: Array<{ state: RequestFence }> }>(
    'INSERT INTO request_fences (id, state) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET state = request_fences.state RETURNING state',
    [fenceId, state],
  );
  return rows[0]!.state;
}

/**
 * The worker takes the request's work on, inside the transaction that does it, so the claim commits
 * with the work or not at all. `answered`: the request gave up first, and the work must not be done.
 * A retry of the same work finds its own `claimed`.
 */
export function claimRequestFence(trx: Db, fenceId: string): Promise<RequestFence> {
  return writeFenceFirst(trx, fenceId, 'claimed');
}

/**
 * The request gives up on its work (it answers 503): `answered` unless the worker claimed it
 * first, in a statement given at most `withinMs` (a claim still uncommitted is waited for that long).
 */
export function answerRequestFence(db: Db, fenceId: string, withinMs: number): Promise<RequestFence> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT set_config('statement_timeout', ?, true)`, [`${Math.max(1, Math.round(withinMs))}ms`]);
    return writeFenceFirst(trx, fenceId, 'answered');
  });
}
