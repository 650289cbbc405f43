import type { Db } from './db';

export interface EventRow {
  id: string;
  seq: number;
  merchant_id: string;
  type: string;
  checkout_id: string | null;
  charge_id: string | null;
  customer_id: string | null;
  body: string;
  enabled: boolean;
  channel: 'outbox' | 'hold';
  delivery_status: 'pending' | 'delivered' | 'failed' | 'not_enabled' | 'no_webhook_url';
  dispatched_at: Date | null;
  created_at: Date;
}

export interface DeliveryAttemptRow {
  id: number;
  event_id: string;
  attempt: number;
  url: string | null;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export async function insertEvent(
  db: Db,
  row: Omit<EventRow, 'seq' | 'created_at' | 'dispatched_at' | 'delivery_status'> & Partial<Pick<EventRow, 'delivery_status' | 'dispatched_at'>>,
): Promise<EventRow> {
  const [inserted] = await db<EventRow>('events').insert(row).returning('*');
  return inserted as EventRow;
}

export async function findEvent(db: Db, id: string): Promise<EventRow | undefined> {
  return db<EventRow>('events').where({ id }).first();
}

export async function listEvents(
  db: Db,
  filter: { merchantId?: string; type?: string; checkoutId?: string; chargeId?: string; limit: number },
): Promise<EventRow[]> {
  const query = db<EventRow>('events');
  if (filter.merchantId) query.where({ merchant_id: filter.merchantId });
  if (filter.type) query.where({ type: filter.type });
  if (filter.checkoutId) query.where({ checkout_id: filter.checkoutId });
  if (filter.chargeId) query.where({ charge_id: filter.chargeId });
  return query.orderBy('seq', 'desc').limit(filter.limit);
}

export async function listAttempts(db: Db, eventIds: string[]): Promise<DeliveryAttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db<DeliveryAttemptRow>('event_delivery_attempts').whereIn('event_id', eventIds).orderBy('id');
}

export async function insertAttempt(db: Db, row: Omit<DeliveryAttemptRow, 'id'>): Promise<void> {
  await db('event_delivery_attempts').insert(row);
}

/** What the event log keeps of an attempt written before it was made whose process died before its outcome. */
export const UNFINISHED_ATTEMPT_ERROR = 'no outcome recorded yet: the attempt is under way, or the process sending it stopped';

/**
 * Whether the charge's checkout.hold has a recorded attempt that was not a 2xx (a refusal, a
 * timeout, a refused target): the merchant's answer was learnt, and it was no. Not merchant-scoped:
 * the hold activities' own look-up by charge id, never on a request path.
 */
export async function holdRefusalRecordedUnscoped(db: Db, chargeId: string): Promise<boolean> {
  const row = await db('event_delivery_attempts as a')
    .join('events as e', 'e.id', 'a.event_id')
    .where({ 'e.charge_id': chargeId, 'e.channel': 'hold' })
    .where((q) => q.whereNull('a.http_status').orWhere('a.http_status', '<', 200).orWhere('a.http_status', '>=', 300))
    // An attempt written before it was made (startAttempt) and never finished is no answer.
    .where((q) => q.whereNull('a.error').orWhereNot('a.error', UNFINISHED_ATTEMPT_ERROR))
    .first('a.id');
  return row !== undefined;
}

/** Writes an attempt before it is made (see attemptDelivery); answers its id for finishAttempt. */
export async function startAttempt(db: Db, row: Pick<DeliveryAttemptRow, 'event_id' | 'attempt' | 'url'>): Promise<number> {
  const [inserted] = await db('event_delivery_attempts')
    .insert({ ...row, started_at: db.fn.now(), duration_ms: 0, http_status: null, error: UNFINISHED_ATTEMPT_ERROR, response_excerpt: null })
    .returning('id');
  return (inserted as { id: number }).id;
}

export async function finishAttempt(db: Db, id: number, outcome: Omit<DeliveryAttemptRow, 'id' | 'event_id' | 'attempt' | 'url'>): Promise<void> {
  await db('event_delivery_attempts').where({ id }).update(outcome);
}

export async function setDeliveryStatus(db: Db, id: string, status: EventRow['delivery_status']): Promise<void> {
  await db('events').where({ id }).update({ delivery_status: status });
}

/**
 * Settles a charge's checkout.hold whose sender never wrote its outcome (the hold activity died
 * after sending it), by the answer the charge goes by. Only a still pending one: a late answer
 * that arrives after this writes its own. The hold event follows the claim of the charge's hold,
 * so the merchant's index finds it from that time on.
 */
export async function settleUnansweredHold(db: Db, merchantId: string, chargeId: string, holdSentAt: Date, status: 'delivered' | 'failed'): Promise<void> {
  await db('events')
    .where({ merchant_id: merchantId, charge_id: chargeId, channel: 'hold', delivery_status: 'pending' })
    .andWhere('created_at', '>=', holdSentAt)
    .update({ delivery_status: status });
}

export async function markDispatched(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db('events').whereIn('id', ids).whereNull('dispatched_at').update({ dispatched_at: db.fn.now() });
}

/** Events by id (not merchant-scoped: used after the commit that recorded them, never on a request path). */
export async function findEventsUnscoped(db: Db, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return db<EventRow>('events').whereIn('id', ids).orderBy('seq');
}

/** An event's delivery ended without a workflow (the committing process's first attempt): status and dispatch in one write. */
export async function recordFirstDeliveryOutcome(db: Db, id: string, status: 'delivered' | 'no_webhook_url'): Promise<void> {
  await db('events').where({ id }).update({ delivery_status: status, dispatched_at: db.fn.now() });
}

export interface UndispatchedEvent {
  id: string;
  merchant_id: string;
  delivery_status: EventRow['delivery_status'];
}

/** Enabled outbox events whose delivery workflow was never started (a crash fell between commit and start). */
export async function findUndispatched(db: Db, olderThanMs: number, limit: number): Promise<UndispatchedEvent[]> {
  return db('events')
    .select('id', 'merchant_id', 'delivery_status')
    .whereNull('dispatched_at')
    .andWhere({ enabled: true, channel: 'outbox' })
    .andWhere('created_at', '<', db.raw(`now() - (? * interval '1 millisecond')`, [olderThanMs]))
    .orderBy('seq')
    .limit(limit);
}

/** Which of these events have a delivery attempt recorded. */
export async function eventsWithAttempts(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ event_id: string }> = await db('event_delivery_attempts').whereIn('event_id', ids).distinct('event_id');
  return new Set(rows.map((r) => r.event_id));
}

/** Which of these events have an attempt the merchant accepted (a 2xx answer). */
export async function eventsWithAcceptedAttempt(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ event_id: string }> = await db('event_delivery_attempts').whereIn('event_id', ids).whereBetween('http_status', [200, 299]).distinct('event_id');
  return new Set(rows.map((r) => r.event_id));
}

/** Whether the merchant accepted (2xx) an attempt of this event that started at or after `since`. */
export async function hasAcceptedAttemptSince(db: Db, eventId: string, since: Date): Promise<boolean> {
  const row = await db('event_delivery_attempts').where({ event_id: eventId }).whereBetween('http_status', [200, 299]).andWhere('started_at', '>=', since).first('id');
  return row !== undefined;
}

/** Events whose delivery is known to have been accepted: status and dispatch in one write. */
export async function markDelivered(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db('events').whereIn('id', ids).whereNull('dispatched_at').update({ delivery_status: 'delivered', dispatched_at: db.fn.now() });
}

/** The merchant of each event, by event id (not merchant-scoped: used by the dispatcher, never on a request path). */
export async function eventMerchantIds(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows: Array<{ id: string; merchant_id: string }> = await db('events').whereIn('id', ids).select('id', 'merchant_id');
  return new Map(rows.map((r) => [r.id, r.merchant_id]));
}
