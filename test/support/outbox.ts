import type { Service } from './harness';
import { sweepOutbox } from '../../src/events/sweeper';

/**
 * One outbox sweep with these events past the sweeper's grace period, run in the transaction that
 * ages them: a test that needs an event swept has it swept at once, instead of waiting some 20 s
 * for the worker's own sweeper to find it due. A sender's live lease still keeps the sweep away;
 * `senderGone` (the process that claimed them was killed) lets its lease run out first, as the
 * minute after a crash would.
 */
export async function sweepAsDue(service: Service, eventIds: string[], options: { senderGone?: boolean } = {}): Promise<void> {
  await service.deps.db.transaction(async (trx) => {
    const lease = options.senderGone ? { delivery_lease_until: null } : {};
    await trx('events').whereIn('id', eventIds).update({ created_at: trx.raw("now() - interval '1 minute'"), ...lease });
    await sweepOutbox({ ...service.deps, db: trx });
  });
}
