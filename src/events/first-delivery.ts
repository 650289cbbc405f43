import type { Logger } from '../logger';
import { claimFirstAttempt, findEventsUnscoped, markDispatched, recordFirstDeliveryOutcome, releaseDeliveryLease, type EventRow } from '../storage/events';
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
 * One sender at a time: the first attempt claims its event (a lease, FIRST_DELIVERY_LEASE_MS) in
 * the statement that records it, and only while the event is undispatched, unattempted and free;
 * the outbox sweeper claims the same lease before it dispatches. So an event the sweeper took
 * (this process waited too long for a pool connection, say) gets no first attempt from here, and
 * the sweeper leaves alone an event whose first attempt is still running, however slow the merchant.
 * An event is marked dispatched in the same write that records its outcome (delivered, or no
 * webhook URL), or once its retry workflow has started (workflow id = event id). A crash before
 * that leaves it undispatched for the sweeper, once the lease has run out.
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

/**
 * How long a first attempt holds its event against the sweeper: the attempt's 10 s, the writes of
 * its outcome (each may wait 10 s for a pool connection) and its retry workflow's start, with room
 * to spare. A process that dies meanwhile leaves the event to the sweeper once it runs out.
 */
export const FIRST_DELIVERY_LEASE_MS = 60_000;

async function firstAttempt(deps: FirstDeliveryDeps, event: EventRow, merchant: MerchantRow): Promise<void> {
  // Already taken by someone (a retried activity's earlier run, a sweep): theirs to finish.
  if (event.dispatched_at !== null || event.delivery_status !== 'pending') return;
  const url = merchant.settings.webhook_url;
  if (!url) return recordFirstDeliveryOutcome(deps.db, event.id, 'no_webhook_url');
  // The rows read may be stale: the claim checks again, in the statement that records the attempt.
  const started = await claimFirstAttempt(deps.db, event.id, url, FIRST_DELIVERY_LEASE_MS);
  if (started === null) return;
  const result = await attemptDelivery(deps, event, merchant, 1, { started, markDelivered: { dispatched: true } });
  if (!result) return recordFirstDeliveryOutcome(deps.db, event.id, 'no_webhook_url');
  if (result.ok) return;
  try {
    await startDelivery(deps, event, 1);
  } catch (error) {
    // Temporal refused: the sweeper starts the workflow, at its next sweep rather than after the lease.
    await releaseDeliveryLease(deps.db, [event.id]).catch(() => undefined);
    throw error;
  }
  await markDispatched(deps.db, [event.id]);
}
