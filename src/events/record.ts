import type { Db } from '../storage/db';
import { newId } from '../domain/ids';
import { buildEnvelope, isDelivered, type EventType } from '../domain/event-catalog';
import type { MerchantSettings } from '../domain/settings';
import { insertEvent, insertEvents, type EventInsert, type EventRow } from '../storage/events';

export interface EventRefs {
  checkoutId?: string | null;
  chargeId?: string | null;
  customerId?: string | null;
}

/** One event to record: its type, its data and the rows it refers to. */
export interface EventToRecord {
  type: EventType;
  data: object;
  refs: EventRefs;
}

/**
 * Records one event in the outbox, inside the caller's transaction so it commits together with
 * the change it reports. The envelope is serialised here, once; delivery sends these bytes.
 * An event the merchant has not enabled is still recorded (the event log shows it) but is
 * never delivered.
 */
export async function recordEvent(
  trx: Db,
  merchant: { id: string; settings: MerchantSettings },
  type: EventType,
  data: object,
  refs: EventRefs,
  channel: EventRow['channel'] = 'outbox',
): Promise<EventRow> {
  return insertEvent(trx, eventRow(merchant, { type, data, refs }, channel));
}

/** One merchant's several events, as recordEvent records each, in one statement and in this order. */
export async function recordEvents(trx: Db, merchant: { id: string; settings: MerchantSettings }, events: readonly EventToRecord[]): Promise<EventRow[]> {
  return insertEvents(trx, outboxRows(merchant, events));
}

/** The outbox rows recordEvents writes, for a statement that inserts them with other work. */
export function outboxRows(merchant: { id: string; settings: MerchantSettings }, events: readonly EventToRecord[]): EventInsert[] {
  return events.map((event) => eventRow(merchant, event, 'outbox'));
}

function eventRow(merchant: { id: string; settings: MerchantSettings }, { type, data, refs }: EventToRecord, channel: EventRow['channel']) {
  const id = newId('event');
  const enabled = isDelivered(type, merchant.settings.enabled_events);
  // With no webhook URL the outcome is known as the event is written: it goes out as settled, so
  // no first attempt has to write it afterwards (one write fewer per event) and no sweep takes it.
  const unaddressed = enabled && channel === 'outbox' && !merchant.settings.webhook_url;
  return {
    id,
    merchant_id: merchant.id,
    type,
    checkout_id: refs.checkoutId ?? null,
    charge_id: refs.chargeId ?? null,
    customer_id: refs.customerId ?? null,
    body: buildEnvelope(id, type, data),
    enabled,
    channel,
    delivery_status: !enabled ? 'not_enabled' : unaddressed ? 'no_webhook_url' : 'pending',
    ...(unaddressed ? { dispatched_at: new Date() } : {}),
  } as const;
}
