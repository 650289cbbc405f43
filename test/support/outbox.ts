import type { Service } from './harness';
import { sweepOutbox } from '../../src/events/sweeper';

/**
 * One outbox sweep with these events past the sweeper's grace period, run in the transaction that
 * ages them. Every test file's worker sweeps the run's one database and starts what it finds on its
 * own task queue (sweeper.test.ts's sweep, with a stand-in Temporal, only marks it dispatched), so
 * an event left to age in the open could be taken by another file, and its delivery stranded when
 * that file stops its worker. Aged and swept in one commit, it is never due to any other sweeper.
 */
export async function sweepAsDue(service: Service, eventIds: string[]): Promise<void> {
  await service.deps.db.transaction(async (trx) => {
    await trx('events').whereIn('id', eventIds).update({ created_at: trx.raw("now() - interval '1 minute'") });
    await sweepOutbox({ ...service.deps, db: trx });
  });
}
