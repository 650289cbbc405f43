import type { AppDeps } from '../app-deps';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { adminPage, type AdminPageQuery } from '../readback/list-page';
import { findEventUnscoped, listAttempts, listDeliverySeries, type EventRow } from '../storage/events';
import { pageEventsUnscoped } from '../storage/pages';
import { findMerchant } from '../storage/merchants';
import { findMerchantNamesUnscoped } from '../storage/admin-reads';
import { redeliverEvent } from './dispatch';
import { presentEvent } from './present';
import { recordAudit } from '../identity/audit';
import { inScope, type Actor, type MerchantScope } from '../identity/context';

/** Events as the event logs (admin and merchant) show them: each attempt and each delivery series, read once for the page. */
export async function presentEventLog(db: Db, events: EventRow[]) {
  const ids = events.map((e) => e.id);
  const [attempts, series] = await Promise.all([listAttempts(db, ids), listDeliverySeries(db, ids)]);
  return events.map((e) => presentEvent(e, attempts, series));
}

/** The operator's event log: each event with its merchant by name beside its id (operators read names). */
async function presentOperatorEventLog(db: Db, events: EventRow[]) {
  const [presented, names] = await Promise.all([presentEventLog(db, events), findMerchantNamesUnscoped(db, events.map((e) => e.merchant_id))]);
  return presented.map((event, i) => ({ ...event, merchant_name: names.get(events[i]!.merchant_id) ?? null }));
}

/** A page of the operator's event log across merchants, newest first, each event with its delivery attempts. */
export function listEventLogForOperator(db: Db, query: AdminPageQuery & Parameters<typeof pageEventsUnscoped>[1]) {
  return adminPage((page) => pageEventsUnscoped(db, query, page), query, (rows) => presentOperatorEventLog(db, rows));
}

/** One event for the operator (any merchant's), with its delivery attempts. */
export async function getEventForOperator(db: Db, id: string) {
  return (await presentOperatorEventLog(db, [await eventForOperator(db, id)]))[0]!;
}

/**
 * Resends an enabled outbox event as a new delivery series to the merchant's webhook_url. An
 * event outside the actor's scope is answered like a missing one (not found), for every caller.
 * The audit row, naming the actor and their client address, commits with the series, before the
 * delivery starts.
 */
export async function resendEvent(deps: AppDeps, actor: Actor, id: string, scope: MerchantScope) {
  const event = await findEventUnscoped(deps.db, id);
  // Another merchant's event (for a merchant's person) is reported exactly like a missing one.
  if (!event || !inScope(scope, event.merchant_id)) throw eventNotFound(id);
  if (!event.enabled) {
    throw new ValidationError('This event is not enabled for the merchant.', 'It was off in the merchant\'s enabled_events when it was recorded, so it was never sent and cannot be; enabling it applies to events recorded from then on.');
  }
  if (event.channel === 'hold') throw new ValidationError('A hold is never re-sent.', 'checkout.hold is synchronous and never retried.');
  const merchant = await findMerchant(deps.db, event.merchant_id);
  if (!merchant?.settings.webhook_url) throw new ValidationError('The merchant has no webhook_url.', 'Set webhook_url in the merchant settings, then resend; the event is kept.');
  const series = await redeliverEvent(deps, event.id, 'resend', (trx, n) => recordAudit(trx, { merchantId: event.merchant_id, actor, action: 'event.resent', target: id, details: { series: n } }));
  return { id: event.id, resent: true, series };
}

const eventNotFound = (id: string) => new AdminNotFoundError('Event not found.', `No event ${id}.`);

async function eventForOperator(db: Db, id: string): Promise<EventRow> {
  const event = await findEventUnscoped(db, id);
  if (!event) throw eventNotFound(id);
  return event;
}
