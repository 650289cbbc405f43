import type { Logger } from '../logger';
import { findEventsUnscoped, markDispatched, recordFirstDeliveryOutcome, type EventRow } from '../storage/events';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { attemptDelivery, type DeliveryDeps } from './deliver';
import { startDelivery, type DispatchDeps } from './dispatch';

export type FirstDeliveryDeps = DispatchDeps & DeliveryDeps & { logger: Logger };

/** Events as the committing transaction wrote them, with their merchant as it read it. */
export interface RecordedEvents {
  events: EventRow[];
  merchant: MerchantRow;
}

/** First attempts still running in this process, so a stopping worker can let them finish. */
const inFlight = new Set<Promise<void>>();

/**
 * After the commit that recorded them, the process that committed the events makes each one's
 * first delivery attempt itself, at once: no Temporal round trip lies between a charge's success
 * and the merchant's webhook. Only a failed first attempt starts the event's delivery workflow,
 * which makes the remaining attempts (numbered on, same doubling backoff, five in all).
 *
 * Exactly once: an event is marked dispatched in the same write that records its outcome
 * (delivered, or no webhook URL), or once its retry workflow has started (workflow id = event id).
 * A crash before that leaves it undispatched for the outbox sweeper, whose grace period outlasts
 * an attempt's timeout, so the sweeper never delivers an event while its first attempt runs.
 *
 * Runs in the background: the activity that committed answers its workflow without waiting for
 * the merchant's endpoint. A failure here is logged; the sweeper dispatches what it left.
 */
export function deliverAfterCommit(deps: FirstDeliveryDeps, eventIds: string[], recorded?: RecordedEvents): void {
  if (eventIds.length === 0) return;
  const work = firstAttempts(deps, eventIds, recorded).catch((error: unknown) => {
    deps.logger.warn({ err: error, event_ids: eventIds }, 'first delivery attempt failed; the outbox sweeper will dispatch');
  });
  inFlight.add(work);
  void work.finally(() => inFlight.delete(work));
}

/** Waits for the first attempts running in this process (a worker stopping, tests). */
export async function settleFirstDeliveries(): Promise<void> {
  while (inFlight.size > 0) await Promise.all([...inFlight]);
}

async function firstAttempts(deps: FirstDeliveryDeps, eventIds: string[], recorded?: RecordedEvents): Promise<void> {
  // The rows the commit wrote, when the caller has them all; read back otherwise.
  const known = new Map((recorded?.events ?? []).map((e) => [e.id, e]));
  const events = eventIds.every((id) => known.has(id)) ? eventIds.map((id) => known.get(id)!) : await findEventsUnscoped(deps.db, eventIds);
  // Events recorded by one commit are usually one merchant's: each merchant is read once.
  const merchants = new Map<string, Promise<MerchantRow | undefined>>(recorded ? [[recorded.merchant.id, Promise.resolve(recorded.merchant)]] : []);
  for (const event of events) if (!merchants.has(event.merchant_id)) merchants.set(event.merchant_id, findMerchant(deps.db, event.merchant_id));
  await Promise.all(events.map(async (event) => firstAttempt(deps, event, (await merchants.get(event.merchant_id))!)));
}

async function firstAttempt(deps: FirstDeliveryDeps, event: EventRow, merchant: MerchantRow): Promise<void> {
  // Already taken by someone (a retried activity's earlier run, a sweep): theirs to finish.
  if (event.dispatched_at !== null || event.delivery_status !== 'pending') return;
  const result = await attemptDelivery(deps, event, merchant, 1, { recordStart: true });
  if (!result) return recordFirstDeliveryOutcome(deps.db, event.id, 'no_webhook_url');
  if (result.ok) return recordFirstDeliveryOutcome(deps.db, event.id, 'delivered');
  await startDelivery(deps, event.id, event.merchant_id, 1);
  await markDispatched(deps.db, [event.id]);
}
