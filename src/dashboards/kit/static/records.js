// Shared by the operator's and the merchant's dashboards: how a payment method, a review's
// evidence, a timeline entry and a delivery attempt read on a page (always as text).
import { facts, h, json, money, when } from './dom.js';
import { attemptOutcome, duration, recordIds, timelineSentence } from './sentences.js';

/** A payment method as people read it: "visa ending 4242". The API's charges carry `card`; a review's method carries `details.card`. */
export function paymentMethodText(pm) {
  if (!pm) return '—';
  const instrument = (key) => pm[key] || (pm.details && pm.details[key]);
  const card = instrument('card');
  if (card) return `${card.brand || 'card'} ending ${card.last4 || card.last_four || '?'}`;
  const bank = instrument('bank_account');
  if (bank) return `bank account ending ${bank.last4 || bank.last_four || '?'}`;
  return pm.payment_type;
}

/** The KYC and geo evidence a reviewer decides on, as plain facts. */
export function evidenceView(evidence) {
  if (!evidence) return h('p', { class: 'muted' }, 'No evidence recorded.');
  const kyc = evidence.kyc_record;
  const geo = evidence.geo_check;
  return h('div', { class: 'evidence' },
    h('h4', {}, 'Evidence'),
    facts([
      ['Rule', evidence.rule ? `review withdrawals of at least ${money(evidence.rule.min_amount_cents)}` : '—'],
      ['KYC', kyc ? [`${kyc.verified ? 'verified' : 'NOT verified'} by ${kyc.provider} (${kyc.first_name} ${kyc.last_name}, ${kyc.state} ${kyc.country}) · `, h('code', { class: 'id' }, kyc.id)] : 'no KYC record'],
      ['Geo check', geo ? [`${geo.passed ? 'passed' : 'FAILED'}: ${[geo.municipality, geo.region, geo.country].filter(Boolean).join(', ')} at ${when(geo.checked_at)} · `, h('code', { class: 'id' }, geo.id)] : 'no geo check'],
    ]),
  );
}

/** One timeline line: when, the sentence, its ids to copy, and the record's details (the receiver's answer, evidence). */
export function timelineEntry(entry) {
  const d = entry.details;
  const extra = [];
  if ((entry.kind === 'webhook.attempt' || entry.kind === 'hold') && 'http_status' in d) {
    extra.push(facts([
      ['Status', d.http_status === null ? d.error : `HTTP ${d.http_status}`],
      ['Latency', duration(d.duration_ms)],
      ['URL', d.url],
      ['Response', d.response_excerpt === null || d.response_excerpt === undefined ? '—' : h('code', {}, d.response_excerpt)],
    ]));
  }
  if (entry.kind === 'review.created' && d.evidence) extra.push(h('details', {}, h('summary', {}, 'Evidence'), json(d.evidence)));
  if (entry.kind === 'checkout.blocked' && d.evidence) extra.push(h('details', {}, h('summary', {}, 'Evidence'), json(d.evidence)));
  const ids = recordIds(d);
  return h('li', { class: `entry ${entry.kind.replace('.', '-')}`, 'data-kind': entry.kind, title: entry.summary },
    h('time', { datetime: entry.at }, when(entry.at)),
    h('p', {}, timelineSentence(entry)),
    ids.length ? h('p', { class: 'muted ids' }, h('small', {}, ids.map((id, i) => [i ? ' · ' : '', h('code', { class: 'id' }, id)]))) : null,
    extra,
  );
}

/** One delivery attempt (the list numbers nothing itself): which attempt, the answer and how long it took, when. */
export function attemptLine(a) {
  return h('li', {}, `Attempt ${a.attempt}${a.series > 1 ? ` (delivery series ${a.series})` : ''}: ${attemptOutcome(a)} · `, h('time', { datetime: a.started_at }, when(a.started_at)));
}

/** A person as people read them: their name where the record has one, else the email; the id comes second. */
export const customerName = (c) => (c ? `${c.first_name || ''} ${c.last_name || ''}`.trim() || c.email || c.id : '—');
