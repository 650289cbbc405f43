import type { Service } from './harness';
import { sweepOutbox } from '../../src/events/sweeper';

/**
 * One outbox sweep with these events past the sweeper's grace period, run in the transaction that
 * ages them: a test that needs an event swept has it swept at once, instead of waiting some 20 s
 * for the worker's own sweeper to find it due.
 */
export async function sweepAsDue(service: Service, eventIds: string[]): Promise<void> {
  await service.deps.db.transaction(async (trx) => {
    await trx('events').whereIn('id', eventIds).update({ created_at: trx.raw("now() - interval '1 minute'") });
    await sweepOutbox({ ...service.deps, db: trx });
  });
}
