/**
 * The money rules, checked against the database, the wallet view and the webhooks received,
 * after every command (`final: false`) and once the run has come to rest (`final: true`).
 * Each rule has a name, so a long exploration of known-buggy code can look past one
 * (PROPERTY_IGNORE=name,...) and find the next.
 */
import { REFUND_CAPABLE_PROCESSORS } from '../../../src/domain/settings';
import { subscriptionViolations } from '../../support/subscription-invariants';
import { eventForMove, findTransition, type ChargeStatus } from '../../../src/domain/charge-states';
import { ALWAYS_ON_EVENT_TYPES } from '../../../src/domain/event-types';
import { signatureFromHeaders, verifySignature } from '../../../src/webhooks/signature';
import { DELIVERY_MAX_ATTEMPTS } from '../../../workflows/retry-policies';
import type { Model } from './model';
import { admin, IGNORED, wallet, type World } from './world';
import { WorkflowNotFoundError } from '@temporalio/client';
import { checkoutExpiryWorkflowId, checkoutWorkflowId } from '../../../workflows/contract';

/**
 * The reconciler's lease (RECONCILE_LEASE_SECONDS, as the service under test is given it): a
 * charge still `created` this long after its insert has been left behind, and the reconciler
 * settles it. The invariant allows one sweep's margin on top.
 */
export const RECONCILE_LEASE_SECONDS = Number(process.env.RECONCILE_LEASE_SECONDS || 60);
const RECONCILE_MARGIN_MS = 15_000;

const CARD_LIKE = new Set(['card', 'apple_pay', 'google_pay', 'paypal', 'venmo']);
// The processors with a refund path: the sandboxes alpha and beta, and Stripe.
const REFUNDING = REFUND_CAPABLE_PROCESSORS;
const LIVE: ReadonlySet<string> = new Set(['created', 'pending', 'held']);

export interface Snapshot {
  checkouts: any[];
  charges: any[];
  moves: Map<string, Array<{ from_status: ChargeStatus | null; to_status: ChargeStatus; at: Date }>>;
  events: any[];
  refunds: any[];
  reviews: any[];
  paymentMethods: any[];
  /** The customer's restrictions and their liftings, oldest first (see audit.ts). */
  restrictions: Array<{ restricted: boolean; at: Date }>;
}

export async function snapshot(world: World): Promise<Snapshot> {
  const db = world.service.deps.db;
  const merchantId = world.merchant.id;
  // One consistent view: workflows keep committing while the snapshot is read, and a move read
  // without the events its own commit recorded would look like a missing event.
  return db.transaction(async (trx) => {
    await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const checkouts = await trx('checkouts').where({ merchant_id: merchantId });
    const charges = await trx('charges').where({ merchant_id: merchantId }).orderBy('created_at');
    const events = await trx('events').where({ merchant_id: merchantId }).orderBy('seq');
    const refunds = await trx('refunds').where({ merchant_id: merchantId });
    const reviews = await trx('reviews').where({ merchant_id: merchantId });
    const paymentMethods = await trx('payment_methods').where({ merchant_id: merchantId });
    const moveRows = charges.length ? await trx('property_charge_moves').whereIn('charge_id', charges.map((c: any) => c.id)).orderBy('seq') : [];
    const moves = new Map<string, any[]>();
    for (const row of moveRows) moves.set(row.charge_id, [...(moves.get(row.charge_id) ?? []), row]);
    const restrictions = await trx('property_customer_restrictions').where({ customer_id: world.customerId }).orderBy('seq');
    return { checkouts, charges, moves, events, refunds, reviews, paymentMethods, restrictions };
  });
}

class Violations {
  readonly found: string[] = [];
  check(name: string, ok: boolean, message: () => string): void {
    if (!ok && !IGNORED.has(name)) this.found.push(`[${name}] ${message()}`);
  }
}

/** The review that authorized a charge: its charge_id once recorded, else the first matching charge after approval. */
function authorizingReview(s: Snapshot, charge: any): any | undefined {
  const review = s.reviews.find((r) => r.checkout_id === charge.checkout_id);
  if (!review || review.status !== 'approved') return undefined;
  if ('charge_id' in review) return review.charge_id === charge.id ? review : undefined;
  const first = s.charges.find((c) => c.checkout_id === review.checkout_id && c.payment_method_id === review.payment_method_id && c.amount_cents === review.amount_cents && c.created_at >= review.decided_at);
  return first?.id === charge.id ? review : undefined;
}

export async function checkInvariants(world: World, model: Model, final: boolean): Promise<void> {
  // Deliveries first: every event a received request carries was committed before it was sent.
  const received = [...world.endpoint.receivedBy(world.route)];
  const s = await snapshot(world);
  const v = new Violations();
  const eventsOf = (chargeId: string) => s.events.filter((e) => e.charge_id === chargeId);

  for (const charge of s.charges) {
    const moves = s.moves.get(charge.id) ?? [];
    const path = moves.map((m) => m.to_status);
    const label = `charge ${charge.id} (${charge.transaction_type} ${charge.amount_cents}c, ${path.join('->')})`;
    const answered = model.answeredCharges.get(charge.id);
    const review = authorizingReview(s, charge);

    // Every charge answers an attempt: a 201 returned it, or an approved review authorized it,
    // or it renews a subscription (period 1, 2, ...; the subscription invariants check those).
    const renewal = (charge.subscription_period ?? 0) > 0;
    v.check('charge_answered', answered !== undefined || review !== undefined || renewal, () => `${label} was made although no attempt was answered with it and no approved review authorized it`);
    // The review rule: a withdrawal that needed review is held or paid only under its own approved review.
    const reachedHold = path.some((st) => st === 'held' || st === 'pending' || st === 'succeeded');
    if (charge.transaction_type === 'debit' && reachedHold) {
      v.check('review_rule', review !== undefined || answered?.needsReview === false, () => `${label} was held or paid without an approved review of its own`);
    }
    v.check('answer_without_review', !(answered?.needsReview === true), () => `${label} was answered 201 although its attempt needed a review`);

    // Every status change is an edge of the state table.
    v.check('first_status', moves[0]?.from_status === null && moves[0]?.to_status === 'created', () => `${label} did not start at created`);
    for (const m of moves.slice(1)) {
      v.check('state_table', m.from_status !== null && findTransition(m.from_status, m.to_status) !== undefined, () => `${label} moved ${m.from_status} -> ${m.to_status}, not an edge of the state table`);
    }

    // The events of each move: exactly those the table lists (plus release_hold after an accepted hold).
    const holds = eventsOf(charge.id).filter((e) => e.type === 'checkout.hold');
    const leftCreated = moves[1];
    v.check('hold_once', holds.length <= 1, () => `${label} sent checkout.hold ${holds.length} times`);
    v.check('hold_debit_only', holds.length === 0 || charge.transaction_type === 'debit', () => `${label} sent checkout.hold for a deposit`);
    if (path.includes('held')) v.check('hold_before_held', holds.length >= 1, () => `${label} became held without checkout.hold`);
    if (holds.length === 1 && leftCreated) {
      v.check('hold_while_created', new Date(holds[0].created_at).getTime() <= new Date(leftCreated.at).getTime(), () => `${label} sent checkout.hold after it had already left created (to ${leftCreated.to_status})`);
      v.check('hold_decides', leftCreated.to_status === 'held' || leftCreated.to_status === 'failed', () => `${label} sent checkout.hold but left created for ${leftCreated.to_status} while the hold was unanswered`);
    }
    if (charge.transaction_type === 'debit') {
      v.check('debit_held_first', !leftCreated || leftCreated.to_status === 'held' || leftCreated.to_status === 'failed', () => `${label}: a withdrawal left created for ${leftCreated!.to_status} without being held first`);
    }
    const required: string[] = [];
    const optional: string[] = [];
    let wasHeld = false;
    for (const m of moves.slice(1)) {
      if (m.from_status === null || !findTransition(m.from_status, m.to_status)) continue;
      const event = eventForMove(m.from_status, m.to_status, charge.transaction_type);
      if (event && event !== 'checkout.hold') required.push(event);
      // A withdrawal whose hold the merchant accepted (held, or accepted while the processor failed
      // it) is released when it fails; when the hold's answer may have been lost, release is allowed.
      // After success the hold was spent: a reversal is the table's event alone, never a release.
      const releasing = (m.to_status === 'failed' || m.to_status === 'cancelled') && m.from_status !== 'held' && m.from_status !== 'succeeded';
      if (releasing && (wasHeld || charge.hold_accepted_at)) {
        required.push('checkout.release_hold');
      } else if (releasing && charge.hold_sent_at) {
        optional.push('checkout.release_hold');
      }
      if (m.to_status === 'held') wasHeld = true;
    }
    // A release is sent only for a hold whose POST was made (received here: the endpoint is local),
    // and never once the charge succeeded: a payout's hold is spent when it succeeds.
    const releaseEvents = eventsOf(charge.id).filter((e) => e.type === 'checkout.release_hold');
    if (releaseEvents.length) {
      const posted = received.some((r) => r.body?.type === 'checkout.hold' && r.body?.data?.charge?.id === charge.id);
      v.check('release_without_hold_post', posted, () => `${label} recorded checkout.release_hold, but no checkout.hold was ever POSTed for it`);
      const success = eventsOf(charge.id).find((e) => e.type === 'checkout.succeeded');
      v.check('release_after_success', !success || releaseEvents.every((e) => Number(e.seq) < Number(success.seq)), () => `${label} recorded checkout.release_hold after checkout.succeeded (a spent hold released)`);
    }
    // No charge of a restricted customer is created while the restriction stands.
    const insertedAt = moves[0]?.at ? new Date(moves[0].at).getTime() : new Date(charge.created_at).getTime();
    const during = restrictedAt(s, insertedAt);
    v.check('no_charge_while_restricted', during === null, () => `${label} was created ${insertedAt - during!} ms after the customer was restricted, before the restriction was lifted`);
    // Nothing stays `created` past the reconciler's lease.
    const age = Date.now() - new Date(charge.created_at).getTime();
    v.check('created_past_lease', !(charge.status === 'created' && age > RECONCILE_LEASE_SECONDS * 1000 + RECONCILE_MARGIN_MS), () => `${label} is still created ${Math.round(age / 1000)} s after its insert (lease ${RECONCILE_LEASE_SECONDS} s)`);
    // subscription.* events ride on a subscription's charges; subscriptionViolations checks those.
    const releases = releaseEvents.length;
    // A release frees funds the merchant may hold only because it was sent the hold, before it.
    const releaseSeqs = releaseEvents.map((e) => Number(e.seq));
    v.check('release_after_hold', releaseSeqs.every((seq) => holds.some((h) => Number(h.seq) < seq)), () => `${label} recorded checkout.release_hold without a checkout.hold before it`);
    v.check('release_once', releases <= 1 && (releases === 1) === (charge.hold_released_at !== null), () => `${label} recorded checkout.release_hold ${releases} times, hold_released_at ${charge.hold_released_at ?? 'null'}`);
    const actual = eventsOf(charge.id).filter((e) => e.type !== 'checkout.hold' && !e.type.startsWith('subscription.')).map((e) => e.type as string);
    const missing = [...required];
    const extra: string[] = [];
    for (const type of actual) {
      const i = missing.indexOf(type);
      if (i >= 0) missing.splice(i, 1);
      else if (optional.includes(type)) optional.splice(optional.indexOf(type), 1);
      else extra.push(type);
    }
    v.check('events_of_moves', missing.length === 0 && extra.length === 0, () => `${label} recorded [${actual.join(', ')}]; its moves list [${required.join(', ')}] (missing ${missing.join(', ') || 'none'}, unexpected ${extra.join(', ') || 'none'})`);
    for (const e of eventsOf(charge.id)) {
      if ((ALWAYS_ON_EVENT_TYPES as readonly string[]).includes(e.type)) v.check('always_on_enabled', e.enabled === true, () => `${e.type} ${e.id} was recorded as not enabled`);
    }

    // Refunds: only a succeeded credit card-like charge on a refund-capable processor, once, with its refunds row.
    const refunds = s.refunds.filter((r) => r.charge_id === charge.id);
    const pm = s.paymentMethods.find((p) => p.id === charge.payment_method_id);
    if (charge.status === 'refunded') {
      v.check('refund_row', refunds.length === 1, () => `${label} is refunded with ${refunds.length} refunds rows`);
      v.check('refund_only_card_credit', charge.transaction_type === 'credit' && CARD_LIKE.has(pm?.payment_type) && REFUNDING.has(charge.processor), () => `${label} (${pm?.payment_type} on ${charge.processor}) was refunded; only a credit card deposit through a refund-capable processor can be`);
    }
    for (const r of refunds) {
      const claimed = r.status === 'pending';
      const settled = claimed ? charge.status === 'succeeded' : charge.status === 'refunded' || (!final && r.status === undefined && charge.status === 'succeeded');
      v.check('refund_all_or_nothing', settled, () => `${label} has a refunds row (${r.source}${r.status ? `, ${r.status}` : ''}) but is ${charge.status}`);
    }
    if (model.refunded.has(charge.id)) v.check('refund_answer', charge.status === 'refunded', () => `${label}: a refund was answered 200 but the charge is ${charge.status}`);
  }

  for (const checkout of s.checkouts) {
    // A subscription's renewals (period 1, 2, ...) belong to its checkout but not to the checkout's payment.
    const charges = s.charges.filter((c) => c.checkout_id === checkout.id && (c.subscription_period ?? 0) === 0);
    const label = `checkout ${checkout.id} (${checkout.flow}, ${checkout.state})`;
    const paid = charges.filter((c) => (s.moves.get(c.id) ?? []).some((m) => m.to_status === 'succeeded'));
    v.check('one_paid_charge', paid.length <= 1, () => `${label} has ${paid.length} charges that succeeded`);
    v.check('completed_iff_paid', (checkout.state === 'completed') === (paid.length > 0), () => `${label}: state ${checkout.state} with ${paid.length} succeeded charges`);
    const live = charges.filter((c) => LIVE.has(c.status));
    v.check('one_live_charge', live.length <= 1, () => `${label} has ${live.length} charges in progress at once (${live.map((c) => c.status).join(', ')})`);
    // Expired and blocked checkouts end with no charge still in progress: nothing would settle it.
    if (checkout.state === 'expired' || checkout.state === 'blocked') {
      v.check('closed_without_live_charge', live.length === 0, () => `${label} has ${live.map((c) => `${c.id} ${c.status}`).join(', ')} in progress`);
    }
    const review = s.reviews.find((r) => r.checkout_id === checkout.id);
    if (checkout.state !== 'expired') v.check('in_review_iff_pending', (checkout.state === 'in_review') === (review?.status === 'pending'), () => `${label}: review ${review?.status ?? 'none'}`);
    if (review?.status === 'declined') {
      v.check('declined_blocks', checkout.state === 'blocked' && !charges.some((c) => c.created_at >= review.created_at), () => `${label}: its review was declined`);
    }
    if (checkout.expires_at) {
      // Both times are the database's: a charge's created_at is its insert's now(), and the insert
      // checks expires_at > now() in the same transaction (seed 51676 found 1.83 s late without it).
      const late = charges.filter((c) => new Date(c.created_at).getTime() > new Date(checkout.expires_at).getTime());
      v.check('no_charge_after_expiry', late.length === 0, () => `${label} made ${late.map((c) => `${c.id} ${new Date(c.created_at).getTime() - new Date(checkout.expires_at).getTime()} ms`).join(', ')} after its expires_at`);
    }
    const events = s.events.filter((e) => e.checkout_id === checkout.id && !e.charge_id);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    v.check('expired_event', count('checkout.expired') === (checkout.state === 'expired' ? 1 : 0), () => `${label} recorded checkout.expired ${count('checkout.expired')} times`);
    v.check('terminally_failed_event', count('checkout.terminally_failed') <= 1 && (count('checkout.terminally_failed') === 0 || checkout.state === 'blocked'), () => `${label} recorded checkout.terminally_failed ${count('checkout.terminally_failed')} times`);
    v.check('review_events', count('checkout.review.created') === (review ? 1 : 0) && count('checkout.review.approved') === (review?.status === 'approved' ? 1 : 0) && count('checkout.review.declined') === (review?.status === 'declined' ? 1 : 0), () => `${label}: review ${review?.status ?? 'none'} with events ${events.map((e) => e.type).join(', ')}`);
    if (final) {
      v.check('expires', !(checkout.state === 'open' && checkout.expires_at && new Date(checkout.expires_at).getTime() < Date.now() - 3_000), () => `${label} is still open ${Date.now() - new Date(checkout.expires_at).getTime()} ms after its expires_at`);
    }
  }

  // Attempts refused before the workflow admitted them write no payment method.
  for (const pm of s.paymentMethods.filter((p) => !p.saved)) {
    const users = s.charges.filter((c) => c.payment_method_id === pm.id).length;
    const reviews = s.reviews.filter((r) => r.payment_method_id === pm.id).length;
    v.check('no_orphan_payment_method', users + reviews > 0 && users <= 1, () => `payment method ${pm.id} (${pm.payment_type}) is used by ${users} charges and ${reviews} reviews`);
  }

  // Card velocity, per card number: the attempts admitted while the limits were on, in any hour,
  // never more than the limit (a new expiry date does not make a new card).
  for (const a of model.cardAttempts) {
    const inHour = model.cardAttempts.filter((b) => b.number === a.number && b.at <= a.at && b.at > a.at - 3_600_000).length;
    v.check('card_velocity', inHour <= a.limit, () => `card ${a.number} was admitted ${inHour} times within an hour with a limit of ${a.limit} per card`);
  }

  // Webhooks: signed with a secret the merchant had deployed then, the stored bytes, the hold
  // never retried; every enabled event delivered at least once.
  const byId = new Map(s.events.map((e) => [e.id, e]));
  for (const r of received) {
    const header = signatureFromHeaders(r.headers);
    const valid = world.secrets.some((secret) => {
      try {
        verifySignature({ rawBody: r.rawBody, header, secret });
        return true;
      } catch {
        return false;
      }
    });
    v.check('signature', valid && r.headers['service-webhook-signature'] === r.headers['service_signature'], () => `delivery of ${r.body?.type} ${r.body?.event_id} has a bad signature`);
    const stored = byId.get(r.body?.event_id);
    v.check('delivered_as_recorded', stored !== undefined && stored.body === r.rawBody && stored.enabled, () => `received ${r.body?.type} ${r.body?.event_id} that is not a recorded enabled event with the same bytes`);
  }
  // History is appended, never rewritten: an event once delivered stays delivered, whatever a
  // resend or a replay of it answers later.
  for (const e of s.events) {
    if (e.delivery_status === 'delivered') model.delivered.add(e.id);
    else v.check('delivered_stays_delivered', !model.delivered.has(e.id), () => `${e.type} ${e.id} was delivered, and is now ${e.delivery_status}`);
  }
  for (const e of s.events.filter((x) => x.channel === 'hold')) {
    // A hold placed after an approval may still be on its way when the approval command returns.
    const n = received.filter((r) => r.body?.event_id === e.id).length;
    v.check('hold_sent_once', final ? n === 1 : n <= 1, () => `hold ${e.id} reached the merchant ${n} times`);
  }
  if (final) {
    for (const e of s.events.filter((x) => x.enabled && x.channel === 'outbox')) {
      v.check('delivered_at_least_once', received.some((r) => r.body?.event_id === e.id), () => `${e.type} ${e.id} (enabled) never reached the merchant`);
    }
    for (const checkout of model.checkouts) {
      // Read the row again beside the view: a timer may have expired the checkout since the snapshot.
      let view = await wallet(world, checkout, 'GET');
      let row = await world.service.deps.db('checkouts').where({ id: checkout.id }).first();
      if (view.body?.state !== row?.state) {
        await new Promise((r) => setTimeout(r, 500));
        view = await wallet(world, checkout, 'GET');
        row = await world.service.deps.db('checkouts').where({ id: checkout.id }).first();
      }
      v.check('wallet_view', view.status === 200 && view.body.state === row?.state, () => `wallet shows ${view.body?.state} for ${checkout.id}, the database ${row?.state}`);
      const review = s.reviews.find((r) => r.checkout_id === checkout.id);
      v.check('wallet_review', (view.body?.review?.id ?? null) === (review?.id ?? null) && (view.body?.review?.status ?? null) === (review?.status ?? null), () => `wallet shows review ${JSON.stringify(view.body?.review)} for ${checkout.id}, the database ${review?.id} ${review?.status}`);
      v.check('wallet_charges', view.body?.charges?.length === s.charges.filter((c) => c.checkout_id === checkout.id && (c.subscription_period ?? 0) === 0).length, () => `wallet lists ${view.body?.charges?.length} charges for ${checkout.id}`);
    }
  }

  // The event log: an event's attempts are numbered once each, across every delivery series; and
  // at rest, an event with an attempt accepted shows as delivered.
  const log = await admin(world, 'GET', `/events?merchant_id=${world.merchant.id}&limit=500`);
  for (const e of log.body?.results ?? []) {
    const numbers: number[] = e.attempts.map((a: any) => a.attempt);
    v.check('attempt_numbers', new Set(numbers).size === numbers.length, () => `${e.type} ${e.id} numbers its attempts ${numbers.join(', ')}`);
    if (final && e.attempts.some((a: any) => a.http_status >= 200 && a.http_status < 300)) v.check('delivered_stays_delivered', e.delivery_status === 'delivered', () => `${e.type} ${e.id} had an attempt accepted but is ${e.delivery_status}`);
  }
  if (final) {
    // Across every run so far: nothing left `created` past the lease, whichever merchant.
    const cutoff = new Date(Date.now() - RECONCILE_LEASE_SECONDS * 1000 - RECONCILE_MARGIN_MS);
    const stuck = await world.service.deps.db('charges').where({ status: 'created' }).where('created_at', '<', cutoff).select('id', 'merchant_id', 'created_at');
    v.check('created_past_lease', stuck.length === 0, () => `${stuck.map((c: any) => `${c.id} (merchant ${c.merchant_id}, inserted ${new Date(c.created_at).toISOString()})`).join(', ')} still created past the lease of ${RECONCILE_LEASE_SECONDS} s`);
  }

  // Subscriptions: at most one paid charge per period, nothing due or charged once cancelled.
  for (const message of await subscriptionViolations(world.service.deps.db, world.merchant.id)) v.check('subscription_rules', false, () => message);
  if (v.found.length) throw new InvariantViolation(v.found);
}

/** When the restriction standing at `at` (ms) began, or null if the customer was not restricted then. */
function restrictedAt(s: Snapshot, at: number): number | null {
  let since: number | null = null;
  for (const r of s.restrictions) {
    const t = new Date(r.at).getTime();
    if (t > at) break;
    since = r.restricted ? t : null;
  }
  return since;
}

export class InvariantViolation extends Error {
  constructor(readonly violations: string[]) {
    super(`invariants violated:\n  ${violations.join('\n  ')}`);
  }
}

/** Lets the run come to rest: no charge in progress, every enabled event reached the merchant. */
export async function settle(world: World, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = await snapshot(world);
    const received = new Set(world.endpoint.receivedBy(world.route).map((r) => r.body?.event_id));
    const live = s.charges.some((c) => LIVE.has(c.status));
    const undelivered = s.events.some((e) => e.enabled && e.channel === 'outbox' && !received.has(e.id));
    const refunding = s.charges.some((c) => c.status === 'succeeded' && s.refunds.some((r) => r.charge_id === c.id));
    // A checkout due to expire within a second, or past its deadline, is about to record
    // checkout.expired (its timer or the sweep): not at rest. Seed 20316557 found the sweep
    // expiring one the moment its charge was cancelled, its deadline already past by less than the
    // second this used to allow, while the final check ran.
    const expiring = s.checkouts.some((c) => c.state === 'open' && c.expires_at && new Date(c.expires_at).getTime() < Date.now() + 1_000);
    // An approval answered but not yet spent: its charge is about to be created (seed 75017 read the
    // wallet after the charge appeared, the snapshot before it).
    const approving = s.reviews.some((r) => r.status === 'approved' && !r.charge_id && s.checkouts.some((c) => c.id === r.checkout_id && c.state === 'open'));
    // A resend or a replay still retrying: its outcome (which must not undo a delivery) is still to be written.
    const resending = await seriesUnderWay(world);
    if (!live && !undelivered && !refunding && !expiring && !approving && !resending) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether a resend or replay series of the merchant's events has neither been accepted nor made its five attempts. */
async function seriesUnderWay(world: World): Promise<boolean> {
  const rows: Array<{ attempts: string | number; accepted: boolean }> = await world.service.deps.db('event_delivery_series as s')
    .join('events as e', 'e.id', 's.event_id')
    .leftJoin('event_delivery_attempts as a', (j) => j.on('a.event_id', 's.event_id').andOn('a.series', 's.series'))
    .where('e.merchant_id', world.merchant.id)
    .groupBy('s.event_id', 's.series')
    .select(world.service.deps.db.raw('count(a.id) AS attempts'), world.service.deps.db.raw('coalesce(bool_or(a.http_status BETWEEN 200 AND 299), false) AS accepted'));
  return rows.some((r) => !r.accepted && Number(r.attempts) < DELIVERY_MAX_ATTEMPTS);
}

/**
 * The status of the workflow that keeps the checkout: its own once an attempt started it, else its
 * expiry workflow (a checkout nobody tried never has a checkout workflow).
 */
async function checkoutWorkflowStatus(world: World, checkoutId: string): Promise<string> {
  const { workflow } = world.service.deps.temporal;
  try {
    return (await workflow.getHandle(checkoutWorkflowId(checkoutId)).describe()).status.name;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return (await workflow.getHandle(checkoutExpiryWorkflowId(checkoutId)).describe()).status.name;
  }
}

/** Every checkout that has ended has a finished workflow: nothing waits on a handler. */
export async function checkWorkflowsFinished(world: World, model: Model, timeoutMs: number): Promise<void> {
  const db = world.service.deps.db;
  const v = new Violations();
  for (const checkout of model.checkouts) {
    // A checkout the sweep expired while its timer ran late: its workflow ends when that timer fires.
    const deadline = Math.max(Date.now(), checkout.timerAt ?? 0) + timeoutMs;
    let status = '';
    let state = '';
    for (;;) {
      state = (await db('checkouts').where({ id: checkout.id }).first()).state;
      if (!['completed', 'expired', 'blocked'].includes(state)) break;
      status = await checkoutWorkflowStatus(world, checkout.id);
      if (status !== 'RUNNING' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    v.check('workflow_finishes', !['completed', 'expired', 'blocked'].includes(state) || status !== 'RUNNING', () => `checkout ${checkout.id} is ${state} but its workflow is still running`);
  }
  if (v.found.length) throw new InvariantViolation(v.found);
}
