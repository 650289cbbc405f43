import type { DeliveryAttemptRow, EventRow } from '../storage/events';

/** One delivery attempt as the event logs (admin and merchant) show it. */
export function presentAttempt(a: DeliveryAttemptRow) {
  return {
    attempt: a.attempt,
    url: a.url,
    started_at: a.started_at.toISOString(),
    duration_ms: a.duration_ms,
    http_status: a.http_status,
    error: a.error,
    response_excerpt: a.response_excerpt,
  };
}

/** An event of the log with its delivery attempts; `payload` is the envelope exactly as signed. */
export function presentEvent(event: EventRow, attempts: DeliveryAttemptRow[]) {
  return {
    id: event.id,
    merchant_id: event.merchant_id,
    type: event.type,
    checkout_id: event.checkout_id,
    charge_id: event.charge_id,
    customer_id: event.customer_id,
    enabled: event.enabled,
    channel: event.channel,
    delivery_status: event.delivery_status,
    created_at: event.created_at.toISOString(),
    payload: JSON.parse(event.body) as unknown,
    attempts: attempts.filter((a) => a.event_id === event.id).map(presentAttempt),
  };
}
