import type { DeliveryAttemptRow, DeliverySeriesRow, EventRow } from '../storage/events';

/** One delivery attempt as the event logs (admin and merchant) show it. */
export function presentAttempt(a: DeliveryAttemptRow) {
  return {
    attempt: a.attempt,
    series: a.series,
    url: a.url,
    started_at: a.started_at.toISOString(),
    duration_ms: a.duration_ms,
    http_status: a.http_status,
    error: a.error,
    response_excerpt: a.response_excerpt,
  };
}

const accepted = (a: DeliveryAttemptRow) => a.http_status !== null && a.http_status >= 200 && a.http_status < 300;

/**
 * Every delivery series of an event, oldest first: its own delivery (series 1, from its commit),
 * then each resend or replay, with how many attempts it made so far and whether one was accepted.
 */
export function presentDeliverySeries(event: EventRow, attempts: DeliveryAttemptRow[], series: DeliverySeriesRow[]) {
  const started = new Map<number, { reason: 'first' | DeliverySeriesRow['reason']; at: Date }>([[1, { reason: 'first', at: event.created_at }]]);
  for (const s of series) if (s.event_id === event.id) started.set(s.series, { reason: s.reason, at: s.requested_at });
  const mine = attempts.filter((a) => a.event_id === event.id);
  return [...started.entries()]
    .sort(([a], [b]) => a - b)
    .map(([number, { reason, at }]) => {
      const of = mine.filter((a) => a.series === number);
      return { series: number, reason, started_at: at.toISOString(), attempts: of.length, accepted: of.some(accepted) };
    });
}

/** An event of the log with its delivery attempts and series; `payload` is the envelope exactly as signed. */
export function presentEvent(event: EventRow, attempts: DeliveryAttemptRow[], series: DeliverySeriesRow[] = []) {
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
    delivery_series: presentDeliverySeries(event, attempts, series),
  };
}
