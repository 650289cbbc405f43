import type { AppDeps } from '../app-deps';
import { ValidationError } from '../http/errors';
import { findReplayableEventIdsUnscoped, type ReplayFilter } from '../storage/admin-reads';
import { redeliverEvent } from './dispatch';
import { eventMerchantIds } from '../storage/events';
import { recordAudit } from '../identity/audit';
import type { AuditActor } from '../../workflows/contract';

/** One replay delivers at most this many events; a wider filter is refused, not truncated. */
export const MAX_REPLAY_EVENTS = 1000;

/**
 * Replay by filter: every enabled outbox event matching it is delivered again (same event_id,
 * fresh signature), oldest first, each as a new delivery series (see redeliverEvent). A dry run only counts, so the operator sees what would go.
 * Holds are never replayed, and events the merchant had not enabled were never delivered.
 */
export async function replayEvents(deps: Pick<AppDeps, 'db' | 'temporal' | 'config'>, filter: ReplayFilter, dryRun: boolean, actor: AuditActor) {
  const ids = await findReplayableEventIdsUnscoped(deps.db, filter, MAX_REPLAY_EVENTS + 1);
  if (ids.length > MAX_REPLAY_EVENTS) {
    throw new ValidationError(`More than ${MAX_REPLAY_EVENTS} events match.`, 'Narrow the filter (type, merchant_id, from, to, failed_only) and replay in parts.');
  }
  if (!dryRun) {
    const merchants = await eventMerchantIds(deps.db, ids);
    // Each event's new series commits with its entry in its merchant's audit log.
    for (const id of ids) {
      await redeliverEvent(deps, id, 'replay', (trx, series) => recordAudit(trx, { merchantId: merchants.get(id)!, actor, action: 'event.resent', target: id, details: { series, replay: true } }));
    }
  }
  return { dry_run: dryRun, count: ids.length, event_ids: ids };
}
