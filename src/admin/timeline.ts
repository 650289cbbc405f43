import type { ChargeRow } from '../storage/charges';
import type { CheckoutRow } from '../storage/checkouts';
import type { DeliveryAttemptRow, DeliverySeriesRow, EventRow } from '../storage/events';
import type { GeoCheckRow } from '../storage/geo-checks';
import type { RefundRow } from '../storage/refunds';

/** One line of a checkout's timeline. `details` carries the record's own fields for the dashboard. */
export interface TimelineEntry {
  at: string;
  kind:
    | 'checkout.created'
    | 'charge.created'
    | 'charge.status'
    | 'hold'
    | 'review.created'
    | 'review.decided'
    | 'geo_check'
    | 'checkout.blocked'
    | 'event'
    | 'event.series'
    | 'webhook.attempt'
    | 'refund';
  summary: string;
  details: Record<string, unknown>;
}

export interface TimelineInputs {
  checkout: CheckoutRow & { blocked_evidence?: unknown };
  charges: ChargeRow[];
  review: { id: string; status: string; amount_cents: number; created_at: Date; decided_at: Date | null; decided_by?: string | null; evidence?: unknown } | null;
  events: EventRow[];
  attempts: DeliveryAttemptRow[];
  /** The resends and replays of the events (delivery series 2 and up). */
  series: DeliverySeriesRow[];
  geoChecks: GeoCheckRow[];
  refunds: RefundRow[];
}

const iso = (d: Date) => d.toISOString();

function attemptDetails(a: DeliveryAttemptRow) {
  return { attempt: a.attempt, series: a.series, url: a.url, http_status: a.http_status, duration_ms: a.duration_ms, error: a.error, response_excerpt: a.response_excerpt };
}

function chargeMove(event: EventRow): { from: string; to: string } | null {
  const charge = (JSON.parse(event.body) as { data?: { charge?: { status?: string; from_status?: string } } }).data?.charge;
  return charge?.status && charge.from_status ? { from: charge.from_status, to: charge.status } : null;
}

/** The hold handshake: the merchant's answer and how long it took. */
function holdEntries(event: EventRow, attempts: DeliveryAttemptRow[]): TimelineEntry[] {
  if (attempts.length === 0) {
    return [{ at: iso(event.created_at), kind: 'hold', summary: 'Hold not delivered (no webhook_url): treated as insufficient funds', details: { event_id: event.id, charge_id: event.charge_id } }];
  }
  return attempts.map((a) => {
    const accepted = a.http_status !== null && a.http_status >= 200 && a.http_status < 300;
    const answer = a.http_status !== null ? `answered ${a.http_status}` : `no answer (${a.error})`;
    return {
      at: iso(a.started_at),
      kind: 'hold' as const,
      summary: `Hold handshake: merchant ${answer} in ${a.duration_ms} ms, ${accepted ? 'accepted' : 'refused'}`,
      details: { event_id: event.id, charge_id: event.charge_id, accepted, ...attemptDetails(a) },
    };
  });
}

const SERIES_VERB = { resend: 'resent', replay: 'replayed' } as const;

function eventEntries(event: EventRow, attempts: DeliveryAttemptRow[], series: DeliverySeriesRow[]): TimelineEntry[] {
  const move = event.charge_id ? chargeMove(event) : null;
  const entries: TimelineEntry[] = [];
  if (move) {
    entries.push({ at: iso(event.created_at), kind: 'charge.status', summary: `Charge ${event.charge_id}: ${move.from} → ${move.to}`, details: { charge_id: event.charge_id, ...move, event_id: event.id } });
  }
  if (event.channel === 'hold') return [...entries, ...holdEntries(event, attempts)];
  const delivery = event.enabled ? event.delivery_status : 'not enabled, not delivered';
  entries.push({ at: iso(event.created_at), kind: 'event', summary: `Event ${event.type} recorded (${delivery})`, details: { event_id: event.id, type: event.type, enabled: event.enabled, delivery_status: event.delivery_status } });
  for (const s of series) {
    entries.push({ at: iso(s.requested_at), kind: 'event.series', summary: `Event ${event.type} ${SERIES_VERB[s.reason]}: delivery series ${s.series}`, details: { event_id: event.id, type: event.type, series: s.series, reason: s.reason } });
  }
  for (const a of attempts) {
    const outcome = a.http_status !== null ? `HTTP ${a.http_status}` : a.error;
    const which = a.series === 1 ? `attempt ${a.attempt}` : `attempt ${a.attempt} (series ${a.series})`;
    entries.push({ at: iso(a.started_at), kind: 'webhook.attempt', summary: `Webhook ${event.type} ${which}: ${outcome} in ${a.duration_ms} ms`, details: { event_id: event.id, type: event.type, ...attemptDetails(a) } });
  }
  return entries;
}

/**
 * One ordered view of everything that happened to a checkout, built from the rows that record
 * it: the checkout, its charges and their moves (the events table), the hold handshake (the
 * hold event's attempt), the review and its decision, the customer's geo checks in the
 * checkout's window, the block with its evidence, refunds, every resend and replay, and every
 * webhook attempt of every delivery series. Pure.
 */
export function buildTimeline(input: TimelineInputs): TimelineEntry[] {
  const { checkout } = input;
  const entries: TimelineEntry[] = [
    { at: iso(checkout.created_at), kind: 'checkout.created', summary: `Checkout created (${checkout.flow})`, details: { checkout_id: checkout.id, type: checkout.type, flow: checkout.flow, expires_at: iso(checkout.expires_at) } },
  ];
  for (const c of input.charges) {
    entries.push({ at: iso(c.created_at), kind: 'charge.created', summary: `Charge ${c.id} created: ${c.amount_cents} cents (${c.transaction_type}), now ${c.status}`, details: { charge_id: c.id, amount_cents: c.amount_cents, transaction_type: c.transaction_type, status: c.status, failure_code: c.failure_code, processor: c.processor } });
  }
  for (const g of input.geoChecks) {
    const place = [g.municipality, g.region, g.country].filter(Boolean).join(', ');
    entries.push({ at: iso(g.checked_at), kind: 'geo_check', summary: `Geo check ${g.passed ? 'passed' : 'failed'}: ${place}`, details: { geo_check_id: g.id, passed: g.passed, place, region: g.region, country: g.country, latitude: g.latitude, longitude: g.longitude } });
  }
  if (input.review) {
    const r = input.review;
    entries.push({ at: iso(r.created_at), kind: 'review.created', summary: `Review ${r.id} opened for ${r.amount_cents} cents`, details: { review_id: r.id, amount_cents: r.amount_cents, evidence: r.evidence ?? null } });
    if (r.decided_at) {
      entries.push({ at: iso(r.decided_at), kind: 'review.decided', summary: `Review ${r.status}${r.decided_by ? ` by ${r.decided_by}` : ''}`, details: { review_id: r.id, status: r.status, decided_by: r.decided_by ?? null } });
    }
  }
  if (checkout.state === 'blocked') {
    entries.push({ at: iso(checkout.updated_at), kind: 'checkout.blocked', summary: `Checkout blocked: ${checkout.blocked_reason}`, details: { reason: checkout.blocked_reason, evidence: checkout.blocked_evidence ?? null } });
  }
  for (const r of input.refunds) {
    // A pending row is a refund's claim on its charge while the processor is asked: no money moved yet.
    const what = r.status === 'pending' ? `Refund ${r.id} of charge ${r.charge_id} in progress` : `Refund ${r.id} of charge ${r.charge_id}`;
    entries.push({ at: iso(r.created_at), kind: 'refund', summary: `${what} (${r.amount_cents} cents, from ${r.source})`, details: { refund_id: r.id, charge_id: r.charge_id, amount_cents: r.amount_cents, source: r.source, requested_by: r.requested_by ?? null, status: r.status } });
  }
  for (const e of input.events) entries.push(...eventEntries(e, input.attempts.filter((a) => a.event_id === e.id), input.series.filter((s) => s.event_id === e.id)));
  // Stable: entries at the same instant keep the order they were built in.
  return entries.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.index - b.index).map((x) => x.entry);
}
