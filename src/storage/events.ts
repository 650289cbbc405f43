import type { Knex } from 'knex';
import { runPrepared, type Db } from './db';

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
  /** Attempts recorded, every series together: the last attempt's number. */
  delivery_attempts: number;
  /** Until when the event's sender (its first attempt, or the outbox sweeper) holds it; see claimFirstAttempt. */
  delivery_lease_until: Date | null;
  created_at: Date;
}

export interface DeliveryAttemptRow {
  id: number;
  event_id: string;
  /** Numbered on across every series of the event: 1, 2, ... in the order they were recorded. */
  attempt: number;
  /** 1 for the event's own delivery; each resend or replay is the next series. */
  series: number;
  url: string | null;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export async function insertEvent(
  db: Db,
  row: Omit<EventRow, 'seq' | 'created_at' | 'dispatched_at' | 'delivery_status' | 'delivery_attempts' | 'delivery_lease_until'> & Partial<Pick<EventRow, 'delivery_status' | 'dispatched_at'>>,
): Promise<EventRow> {
  const columns = Object.keys(row).filter((column) => row[column as keyof typeof row] !== undefined) as Array<keyof typeof row>;
  const [inserted] = await runPrepared<EventRow>(db, insertSql(columns), columns.map((column) => row[column]));
  return inserted;
}

/** The columns every row of insertEvents names, in its statement's order. */
export const EVENT_COLUMNS = ['id', 'merchant_id', 'type', 'checkout_id', 'charge_id', 'customer_id', 'body', 'enabled', 'channel', 'delivery_status', 'dispatched_at'] as const;
export type EventInsert = Parameters<typeof insertEvent>[1] & Pick<EventRow, 'delivery_status'>;

/** An event row as PostgreSQL's JSON writes it: its times as text. */
export type EventJson = Omit<EventRow, 'dispatched_at' | 'delivery_lease_until' | 'created_at'> & Record<'dispatched_at' | 'delivery_lease_until' | 'created_at', string | null>;

/** An event row returned as JSON (beside another table's row), with its times as the driver gives them. */
export function eventFromJson(row: EventJson): EventRow {
  const time = (value: string | null) => (value === null ? null : new Date(value));
  return { ...row, dispatched_at: time(row.dispatched_at), delivery_lease_until: time(row.delivery_lease_until), created_at: time(row.created_at)! };
}

/**
 * Several events in one statement (one round trip), in the order given: their `seq` follows it.
 * Each row names its delivery status; one that names no `dispatched_at` gets null, the column's default.
 */
export async function insertEvents(db: Db, rows: readonly EventInsert[]): Promise<EventRow[]> {
  if (rows.length === 0) return [];
  if (rows.length === 1) return [await insertEvent(db, rows[0])];
  const tuple = `(${EVENT_COLUMNS.map(() => '?').join(', ')})`;
  const values = rows.flatMap((row) => EVENT_COLUMNS.map((column) => row[column] ?? null));
  // Unprepared: its text differs with the number of rows.
  const result = await db.raw(`INSERT INTO events (${EVENT_COLUMNS.map((column) => `"${column}"`).join(', ')}) VALUES ${rows.map(() => tuple).join(', ')} RETURNING *`, values);
  const byId = new Map((result.rows as EventRow[]).map((row) => [row.id, row]));
  return rows.map((row) => byId.get(row.id)!);
}

/** insertEvent's statement for these columns (the same few sets every time). */
function insertSql(columns: string[]): string {
  return `INSERT INTO events (${columns.map((column) => `"${column}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`;
}

export async function findEventUnscoped(db: Db, id: string): Promise<EventRow | undefined> {
  return db<EventRow>('events').where({ id }).first();
}

export async function findMerchantEvent(db: Db, merchantId: string, id: string): Promise<EventRow | undefined> {
  return db<EventRow>('events').where({ merchant_id: merchantId, id }).first();
}

/** The merchant's newest events whose delivery ended failed (every attempt of the series refused), newest first. */
export async function listFailedDeliveries(db: Db, merchantId: string, limit: number): Promise<EventRow[]> {
  // By created_at, so the (merchant_id, created_at) index walks the newest first.
  return db<EventRow>('events').where({ merchant_id: merchantId, delivery_status: 'failed' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(limit);
}

export async function listAttempts(db: Db, eventIds: string[]): Promise<DeliveryAttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db<DeliveryAttemptRow>('event_delivery_attempts').whereIn('event_id', eventIds).orderBy('id');
}

/**
 * The insert of an attempt numbered by `numbered`, an UPDATE of its event that counts one more
 * attempt (`RETURNING id, delivery_attempts`): one statement, and the event row's lock orders
 * concurrent series, so numbers never repeat. Without a matching event nothing is written.
 */
const INSERT_NUMBERED_ATTEMPT = `
  INSERT INTO event_delivery_attempts (event_id, attempt, series, url, started_at, duration_ms, http_status, error, response_excerpt)
  SELECT id, delivery_attempts, ?, ?, coalesce(?::timestamptz, now()), ?, ?, ?, ? FROM numbered
  RETURNING id`;

type NewAttempt = Omit<DeliveryAttemptRow, 'id' | 'attempt' | 'started_at'> & { started_at: Date | null };
const attemptBindings = (row: NewAttempt): Knex.RawBinding[] => [row.series, row.url, row.started_at, row.duration_ms, row.http_status, row.error, row.response_excerpt];

async function insertNumbered(db: Db, numbered: string, bindings: Knex.RawBinding[], row: NewAttempt): Promise<number | null> {
  const result = await db.raw(`WITH numbered AS (${numbered}) ${INSERT_NUMBERED_ATTEMPT}`, [...bindings, ...attemptBindings(row)]);
  const [inserted] = result.rows as Array<{ id: string | number }>;
  return inserted ? Number(inserted.id) : null;
}

/** Writes a finished attempt under the event's next attempt number. */
export async function insertAttempt(db: Db, row: Omit<DeliveryAttemptRow, 'id' | 'attempt'>): Promise<void> {
  await insertNumbered(db, 'UPDATE events SET delivery_attempts = delivery_attempts + 1 WHERE id = ? RETURNING id, delivery_attempts', [row.event_id], row);
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
export async function startAttempt(db: Db, row: Pick<DeliveryAttemptRow, 'event_id' | 'series' | 'url'>): Promise<number> {
  const unfinished = { ...row, started_at: null, duration_ms: 0, http_status: null, error: UNFINISHED_ATTEMPT_ERROR, response_excerpt: null };
  return (await insertNumbered(db, 'UPDATE events SET delivery_attempts = delivery_attempts + 1 WHERE id = ? RETURNING id, delivery_attempts', [row.event_id], unfinished))!;
}

/**
 * The committing process's claim of an event's first attempt, and that attempt written before it
 * is made, in one statement: only while nobody sent it (no attempt, undispatched, pending) and
 * nobody holds its lease. The lease (`leaseMs`) keeps the outbox sweeper away while the attempt
 * runs and its outcome is written, however slow the pool or the merchant. Null: someone else's.
 */
export async function claimFirstAttempt(db: Db, eventId: string, url: string, leaseMs: number): Promise<number | null> {
  const claim = `UPDATE events SET delivery_attempts = 1, delivery_lease_until = now() + make_interval(secs => ?)
    WHERE id = ? AND delivery_attempts = 0 AND dispatched_at IS NULL AND delivery_status = 'pending'
      AND (delivery_lease_until IS NULL OR delivery_lease_until <= now())
    RETURNING id, delivery_attempts`;
  const unfinished = { event_id: eventId, series: 1, url, started_at: null, duration_ms: 0, http_status: null, error: UNFINISHED_ATTEMPT_ERROR, response_excerpt: null };
  return insertNumbered(db, claim, [leaseMs / 1000, eventId], unfinished);
}

/** Gives up the lease of events still undispatched (their sender could not start their workflow), so a sweep takes them at once. */
export async function releaseDeliveryLease(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db('events').whereIn('id', ids).whereNull('dispatched_at').update({ delivery_lease_until: null });
}

export async function finishAttempt(db: Db, id: number, outcome: AttemptOutcome): Promise<void> {
  await db('event_delivery_attempts').where({ id }).update(outcome);
}

export type AttemptOutcome = Omit<DeliveryAttemptRow, 'id' | 'event_id' | 'attempt' | 'series' | 'url'>;

/**
 * Writes an attempt's outcome: the attempt written before it was made (`started`), finished, or a
 * new one under the event's next number. With `delivered`, the event is marked delivered (and
 * dispatched, when asked) in the same transaction, so no reader of the event log ever sees an
 * accepted attempt beside an event still pending.
 */
export async function writeAttemptOutcome(
  db: Db,
  attempt: { started: number | null; row: Pick<DeliveryAttemptRow, 'event_id' | 'series' | 'url'> },
  outcome: AttemptOutcome,
  delivered: { dispatched: boolean } | null,
): Promise<void> {
  const write = async (q: Db) => {
    if (attempt.started !== null) await finishAttempt(q, attempt.started, outcome);
    else await insertAttempt(q, { ...attempt.row, ...outcome });
    if (delivered) await q('events').where({ id: attempt.row.event_id }).update({ delivery_status: 'delivered', ...(delivered.dispatched ? { dispatched_at: q.fn.now() } : {}) });
  };
  if (delivered) await db.transaction(write);
  else await write(db);
}

/**
 * Writes a delivery series' outcome. An event the merchant once accepted stays delivered: a later
 * series (a resend, a replay) that fails adds its attempts to the log but takes nothing back.
 */
export async function setDeliveryStatus(db: Db, id: string, status: EventRow['delivery_status']): Promise<void> {
  await db('events').where({ id }).whereNot({ delivery_status: 'delivered' }).update({ delivery_status: status });
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

/**
 * An event's first attempt found no webhook URL: status and dispatch in one write. (An accepted
 * first attempt writes `delivered` with the attempt itself: writeAttemptOutcome.)
 */
export async function recordFirstDeliveryOutcome(db: Db, id: string, status: 'no_webhook_url'): Promise<void> {
  await db('events').where({ id }).update({ delivery_status: status, dispatched_at: db.fn.now() });
}

export interface UndispatchedEvent {
  id: string;
  merchant_id: string;
  delivery_status: EventRow['delivery_status'];
}

/**
 * Enabled outbox events whose delivery workflow was never started (a crash fell between commit and
 * start, or their first attempt is late), past `olderThanMs` since their commit and with no sender
 * holding them: each is claimed for `leaseMs` in the same statement, so no first attempt starts
 * while the sweeper dispatches it, and two sweepers never take the same event.
 */
export async function claimUndispatched(db: Db, olderThanMs: number, leaseMs: number, limit: number): Promise<UndispatchedEvent[]> {
  const result = await db.raw(
    `UPDATE events SET delivery_lease_until = now() + make_interval(secs => ?)
     WHERE id IN (
       SELECT id FROM events
       WHERE dispatched_at IS NULL AND enabled AND channel = 'outbox'
         AND created_at < now() - make_interval(secs => ?)
         AND (delivery_lease_until IS NULL OR delivery_lease_until <= now())
       ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
     RETURNING id, merchant_id, delivery_status, seq`,
    [leaseMs / 1000, olderThanMs / 1000, limit],
  );
  const rows = result.rows as Array<UndispatchedEvent & { seq: string | number }>;
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(({ id, merchant_id, delivery_status }) => ({ id, merchant_id, delivery_status }));
}

/** Which of these events have an attempt of their own delivery (series 1) recorded. */
export async function eventsWithAttempts(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ event_id: string }> = await db('event_delivery_attempts').whereIn('event_id', ids).where({ series: 1 }).distinct('event_id');
  return new Set(rows.map((r) => r.event_id));
}

/** Which of these events have an attempt the merchant accepted (a 2xx answer). */
export async function eventsWithAcceptedAttempt(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ event_id: string }> = await db('event_delivery_attempts').whereIn('event_id', ids).whereBetween('http_status', [200, 299]).distinct('event_id');
  return new Set(rows.map((r) => r.event_id));
}

/** Whether the merchant accepted (2xx) an attempt of this event's delivery series that started at or after `since`. */
export async function hasAcceptedAttemptSince(db: Db, eventId: string, series: number, since: Date): Promise<boolean> {
  const row = await db('event_delivery_attempts').where({ event_id: eventId, series }).whereBetween('http_status', [200, 299]).andWhere('started_at', '>=', since).first('id');
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

/** What an event's delivery workflow is filed under in the Temporal UI: its merchant, type and checkout. */
export type DeliverySubject = Pick<EventRow, 'id' | 'merchant_id' | 'type' | 'checkout_id'>;

export async function eventSubjects(db: Db, ids: string[]): Promise<DeliverySubject[]> {
  if (ids.length === 0) return [];
  return db('events').whereIn('id', ids).select('id', 'merchant_id', 'type', 'checkout_id');
}

export interface DeliverySeriesRow {
  event_id: string;
  series: number;
  reason: 'resend' | 'replay';
  requested_at: Date;
}

/** What commits with a new delivery series (the resend's audit row), in its transaction. */
export type WithSeries = (trx: Db, series: number) => Promise<void>;

/**
 * Starts the next delivery series of an event (a resend or a replay): its number, recorded with
 * why it runs. The event row is locked while the number is taken, so two at once get two numbers.
 */
export async function startDeliverySeries(db: Db, eventId: string, reason: DeliverySeriesRow['reason'], withSeries?: WithSeries): Promise<number> {
  return db.transaction(async (trx) => {
    await trx('events').where({ id: eventId }).forUpdate().first('id');
    const last = await trx('event_delivery_series').where({ event_id: eventId }).max<{ max: number | null }>('series as max').first();
    const series = Math.max(last?.max ?? 1, 1) + 1;
    await trx('event_delivery_series').insert({ event_id: eventId, series, reason });
    await withSeries?.(trx, series);
    return series;
  });
}

/** The resend and replay series of these events, oldest first. */
export async function listDeliverySeries(db: Db, eventIds: string[]): Promise<DeliverySeriesRow[]> {
  if (eventIds.length === 0) return [];
  return db<DeliverySeriesRow>('event_delivery_series').whereIn('event_id', eventIds).orderBy(['event_id', 'series']);
}
