/**
 * The commands of the property suite. Each one drives the real service over HTTP, checks its
 * answer against the model's allowed statuses, updates the model, then checks every invariant.
 * Commands hold only their parameters (fast-check replays the same instances while shrinking);
 * targets are picked by index into what the model has seen, modulo its length.
 */
import { REFUND_CAPABLE_PROCESSORS } from '../../../src/domain/settings';
import fc from 'fast-check';
import { CHARGE_STATUSES, findTransition, type ChargeStatus } from '../../../src/domain/charge-states';
import { OPTIONAL_EVENT_TYPES } from '../../../src/domain/event-types';
import type { Answer } from './merchant-endpoint';
import { allowedAfterAnswer, allowedAttemptStatuses, definitelyRefused, describe, gateBlocks, kycBlocks, kycNameMismatch, needsReview, type Flow, type Model, type ModelCheckout } from './model';
import { checkInvariants } from './invariants';
import { admin, allowed, api, call, expectThat, sleep, wallet, type World } from './world';

type Cmd = fc.AsyncCommand<Model, World, true>;

const pick = <T>(list: T[], index: number): T | undefined => (list.length ? list[index % list.length] : undefined);

/** What a command needs the model to have seen before it can run. */
type Needs = 'nothing' | 'checkout' | 'withdrawal' | 'review' | 'charge' | 'deposit_charge';

const HAS: Record<Needs, (m: Readonly<Model>) => boolean> = {
  nothing: () => true,
  checkout: (m) => m.checkouts.length > 0,
  withdrawal: (m) => m.checkouts.some((c) => c.type === 'withdrawal'),
  review: (m) => m.checkouts.some((c) => c.review),
  charge: (m) => m.charges.length > 0,
  deposit_charge: (m) => m.charges.some((c) => c.credit),
};

abstract class Base implements Cmd {
  protected needs: Needs = 'nothing';
  /** The processor simulator (and a subscription's test clock) exist for sandbox merchants only. */
  protected sandboxOnly = false;
  async check(m: Readonly<Model>): Promise<boolean> {
    return HAS[this.needs](m) && !(this.sandboxOnly && m.environment !== 'sandbox');
  }
  abstract act(m: Model, w: World): Promise<void>;
  async run(m: Model, w: World): Promise<void> {
    w.trace.push(this.toString());
    await this.act(m, w);
    await checkInvariants(w, m, false);
  }
  abstract toString(): string;
}

// ---------------------------------------------------------------------------------------------
// Settings (admin PATCH) and the merchant endpoint's answers

class PatchSettings extends Base {
  constructor(readonly patch: Record<string, unknown>) {
    super();
  }
  async act(m: Model, w: World) {
    const res = await admin(w, 'PATCH', `/merchants/${w.merchant.id}/settings`, this.patch);
    allowed(res, new Set([200]), this.toString(), 'settings_answer');
    const p = this.patch as any;
    if (p.review) m.review = { enabled: p.review.enabled, min: p.review.min_amount_cents };
    if (p.enabled_events) m.enabledEvents = p.enabled_events;
    if (p.checkout_expiry_seconds) m.expirySeconds = p.checkout_expiry_seconds;
    if (p.card_processor) m.processor = p.card_processor;
    if (p.kyc_required_for) m.kycFor = p.kyc_required_for;
    if (p.geo_required_for) m.geoFor = p.geo_required_for;
    if (p.velocity_limits) m.velocity = { enabled: p.velocity_limits.enabled ?? m.velocity.enabled, cardPerHour: p.velocity_limits.card_attempts_per_hour ?? m.velocity.cardPerHour };
  }
  toString() {
    return `PatchSettings(${JSON.stringify(this.patch)})`;
  }
}

class SetAnswers extends Base {
  constructor(readonly hold: Answer, readonly delivery: Answer) {
    super();
  }
  override async check(m: Readonly<Model>) {
    return m.slowLeft > 0 || (this.hold !== 'slow' && this.delivery !== 'slow');
  }
  async act(m: Model, w: World) {
    if (this.hold === 'slow' || this.delivery === 'slow') m.slowLeft -= 1;
    const route = w.endpoint.route(w.route);
    route.holdAnswer = m.holdAnswer = this.hold;
    route.deliveryAnswer = m.deliveryAnswer = this.delivery;
  }
  toString() {
    return `SetAnswers(hold: ${this.hold}, deliveries: ${this.delivery})`;
  }
}

// ---------------------------------------------------------------------------------------------
// KYC and geo

/** The last name of a KYC record that does not match the profile (production restricts on it). */
const OTHER_LAST_NAME = 'Byron';

async function submitKyc(m: Model, w: World, verified: boolean, lastName: string, what: string): Promise<void> {
  const res = await api(w, 'POST', '/kyc/upsert', {
    customer_id: w.customerId, first_name: 'Ada', last_name: lastName, date_of_birth: '1985-12-10', address_line_1: '12 Main St',
    city: 'New York', state: 'NY', postal_code: '10001', country: 'USA', provider: 'persona', verified,
  });
  allowed(res, new Set([200, 201]), what, 'kyc_answer');
  m.kyc = verified ? 'verified' : 'unverified';
  m.kycLastName = lastName;
}

class SubmitKyc extends Base {
  constructor(readonly verified: boolean) {
    super();
  }
  async act(m: Model, w: World) {
    // The record carries the profile's name as it stands: a match.
    await submitKyc(m, w, this.verified, m.profileLastName, this.toString());
  }
  toString() {
    return `SubmitKyc(verified: ${this.verified})`;
  }
}

const NYC = { latitude: 40.7128, longitude: -74.006 };
const TORONTO = { latitude: 43.6532, longitude: -79.3832 };

class DevicePing extends Base {
  constructor(readonly checkout: number, readonly inside: boolean) {
    super();
  }
  protected override needs: Needs = 'checkout';
  async act(m: Model, w: World) {
    const c = pick(m.checkouts, this.checkout)!;
    const res = await wallet(w, c, 'POST', '/device_pings', this.inside ? NYC : TORONTO);
    allowed(res, new Set([201, 422]), this.toString(), 'ping_answer');
    if (res.status !== 201 || !res.body.geo_check) return;
    const passed = res.body.geo_check.passed === true;
    // A geo check under 30 minutes old is reused: only the first ping of the run decides.
    if (m.geo === 'none') expectThat(passed === this.inside, `${this}: geo check passed=${passed}`, 'ping_answer');
    else expectThat(passed === (m.geo === 'passed'), `${this}: the reused geo check changed its answer`, 'ping_answer');
    m.geo = passed ? 'passed' : 'failed';
  }
  toString() {
    return `DevicePing(checkout #${this.checkout}, ${this.inside ? 'inside (NYC)' : 'outside (Toronto)'})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Checkouts

const FLOWS: Flow[] = ['deposit', 'preset_deposit', 'purchase', 'subscription', 'balance_withdrawal', 'preset_withdrawal'];

export class CreateCheckout extends Base {
  constructor(readonly flow: Flow, readonly amount: number) {
    super();
  }
  body(): Record<string, unknown> {
    const lineItems = [{ name: 'Thing', price_cents: this.amount, quantity: 1 }];
    switch (this.flow) {
      case 'deposit':
        return { type: 'deposit' };
      case 'preset_deposit':
        return { type: 'deposit', fixed_amount_cents: this.amount };
      case 'purchase':
        return { type: 'deposit', line_items: lineItems };
      case 'subscription':
        return { type: 'deposit', line_items: lineItems, subscription_data: { interval: 'month', interval_count: 1 } };
      case 'balance_withdrawal':
        return { type: 'withdrawal', balance_amount_cents: this.amount };
      case 'preset_withdrawal':
        return { type: 'withdrawal', fixed_amount_cents: this.amount };
    }
  }
  async act(m: Model, w: World) {
    const res = await api(w, 'POST', '/checkouts', { customer_id: w.customerId, ...this.body() });
    allowed(res, new Set([201]), this.toString(), 'checkout_answer');
    const view = await wallet(w, { id: res.body.id, secret: res.body.client_secret }, 'GET');
    allowed(view, new Set([200]), `${this}: wallet view`, 'checkout_answer');
    const withdrawal = this.flow.endsWith('withdrawal');
    m.checkouts.push({
      id: res.body.id,
      secret: res.body.client_secret,
      type: withdrawal ? 'withdrawal' : 'deposit',
      flow: this.flow,
      preset: ['deposit', 'balance_withdrawal'].includes(this.flow) ? null : this.amount,
      balance: this.flow === 'balance_withdrawal' ? this.amount : null,
      expiresAt: Date.parse(view.body.expires_at),
      state: 'open',
      review: null,
      admitted: 0,
    });
  }
  toString() {
    return `CreateCheckout(${this.flow}, ${this.amount})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Attempts

export type Method =
  /** `expiry` picks one of EXPIRIES: the same number with another expiry date is the same card. */
  | { kind: 'card'; number: string; expiry?: number }
  | { kind: 'bank'; account: string }
  | { kind: 'crypto'; address: string }
  | { kind: 'wallet'; type: 'apple_pay' | 'google_pay' | 'paypal' | 'venmo' };

export const CARDS = ['4242424242424242', '4000000000000002', '4000000000009995', '4000000000000069', '4000000000003220', '4000000000005126'];
/**
 * Production refuses the sandbox's test cards: there each of CARDS stands for one of these
 * (ordinary numbers passing Luhn, which a production sandbox processor approves).
 */
const PRODUCTION_CARDS = ['5555555555554444', '4111111111111111', '4012888888881881', '5105105105105100', '6011111111111117', '4000056655665556'];
/** Expiry dates as months after now (all in the future): a card tester guessing the expiry. */
const EXPIRIES = [24, 23, 22, 35, 34];
const BAD_LUHN = '4242424242424241';
/** The wallet's answer to an attempt on a checkout the gates blocked (now or before). */
const BLOCKED = 'This checkout is blocked and cannot continue.';

/** The card number an attempt sends at this merchant (see PRODUCTION_CARDS). */
export function cardNumberAt(m: Readonly<Model>, number: string): string {
  const i = CARDS.indexOf(number);
  return m.environment === 'production' && i >= 0 ? PRODUCTION_CARDS[i]! : number;
}

function paymentMethod(m: Readonly<Model>, method: Method): Record<string, unknown> {
  switch (method.kind) {
    case 'card': {
      if (method.expiry === undefined) return { type: 'credit_card', card: { number: cardNumberAt(m, method.number), exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } };
      const now = new Date();
      const expires = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + EXPIRIES[method.expiry % EXPIRIES.length]!, 1));
      return { type: 'credit_card', card: { number: cardNumberAt(m, method.number), exp_month: expires.getUTCMonth() + 1, exp_year: expires.getUTCFullYear(), cvc: '123' } };
    }
    case 'bank':
      return { type: 'bank_account', bank_account: { routing_number: '110000000', account_number: method.account, account_type: 'checking' } };
    case 'crypto':
      return { type: 'crypto', crypto_wallet: { address: method.address, network: 'ethereum' } };
    case 'wallet':
      return { type: method.type, token: `tok_${method.type}_1234` };
  }
}

function methodLabel(method: Method): string {
  return method.kind === 'card' ? `card ${method.number}${method.expiry === undefined ? '' : ` exp+${EXPIRIES[method.expiry % EXPIRIES.length]}m`}` : method.kind === 'bank' ? `bank ${method.account}` : method.kind === 'crypto' ? `crypto ${method.address.slice(-4)}` : method.type;
}

/** Amounts chosen around the review threshold and the balance. */
export type AmountPick = 'below_threshold' | 'at_threshold' | 'above_threshold' | 'small' | 'balance' | 'over_balance' | 'auto_refund';

function amountFor(m: Model, c: ModelCheckout, p: AmountPick): number | undefined {
  if (c.preset !== null) return undefined;
  const min = m.review.min;
  const value = { below_threshold: Math.max(1, min - 1), at_threshold: min, above_threshold: min * 3, small: 50, balance: c.balance ?? 2_500, over_balance: (c.balance ?? 0) + 1, auto_refund: 108 }[p];
  return value;
}

/** Sends one attempt and absorbs its answer into the model; returns the answer. */
async function attemptOnce(m: Model, w: World, c: ModelCheckout, method: Method, amountPick: AmountPick, allowedStatuses: Set<number>, what: string, alone = true) {
  const amount = amountFor(m, c, amountPick);
  const effective = amount ?? c.preset!;
  const needs = needsReview(m, c, effective);
  const velocity = { ...m.velocity };
  const sentAt = Date.now();
  const mismatch = kycNameMismatch(m) && m.kycFor.includes(c.type);
  // Whether the attempt reaches the gates for sure: without them the model would take it (or
  // refuse it for velocity, which comes first), never refuse it for another reason.
  const ungated = allowedAttemptStatuses({ ...m, restricted: false, kycFor: [], geoFor: [] }, c, amount, sentAt);
  // (Of concurrent attempts, one may be refused as in flight while another is at the gates.)
  const reachesGates = alone && !(method.kind === 'card' && method.number === BAD_LUHN) && !ungated.has(422);
  const res = await wallet(w, c, 'POST', '/attempts', { ...(amount === undefined ? {} : { amount_cents: amount }), payment_method: paymentMethod(m, method) });
  // Seed 63005: an attempt sent 1.5 s before the deadline was answered after it, refused by the
  // database's clock (422) where the charge used to be made late.
  // A restricted customer's attempt taken is the restriction rule's failure (one admission
  // policy for every checkout type), not only a wrong answer.
  const taken = res.status === 201 || res.status === 202;
  allowed(res, allowedAfterAnswer(c, allowedStatuses, Date.now()), what, m.restricted && taken ? 'restricted_attempt' : 'attempt_answer');
  if (res.status === 429) expectThat(Number(res.headers.get('retry-after')) >= 1 && typeof res.body?.hint === 'string', `${what}: a 429 without Retry-After or hint: ${res.text}`, 'velocity_answer');
  // Card velocity is checked over the attempts the model saw admitted while the limits were on.
  if ((res.status === 201 || res.status === 202) && velocity.enabled && method.kind === 'card') {
    m.cardAttempts.push({ number: cardNumberAt(m, method.number), at: sentAt, limit: velocity.cardPerHour });
  }
  if (m.environment === 'production' && !m.restricted) {
    // A KYC name mismatch at the gates restricts the customer (in the block's own commit).
    const row = await w.service.deps.db('customers').where({ id: w.customerId }).first();
    m.restricted = row.restriction_reason !== null;
    if (mismatch && reachesGates && res.status === 422) {
      expectThat(m.restricted, `${what}: a verified KYC name differing from the profile blocked the attempt but did not restrict the customer`, 'mismatch_restricts');
    }
  }
  if (res.status === 201) {
    const charge = res.body.charge;
    expectThat(charge?.amount_cents === effective && charge.transaction_type === (c.type === 'deposit' ? 'credit' : 'debit'), `${what}: answered the charge ${JSON.stringify(charge)}`, 'attempt_charge');
    c.admitted += 1;
    m.answeredCharges.set(charge.id, { needsReview: needs });
    m.charges.push({ id: charge.id, checkout: c, credit: c.type === 'deposit', amount: effective, cardNumber: method.kind === 'card' ? cardNumberAt(m, method.number) : null, processor: m.processor, paymentType: method.kind });
    c.state = charge.status === 'succeeded' ? 'completed' : c.state === 'open' ? 'unknown' : c.state;
  } else if (res.status === 202) {
    expectThat(res.body.review?.status === 'pending' && res.body.review.amount_cents === effective, `${what}: answered the review ${JSON.stringify(res.body.review)}`, 'attempt_review');
    c.admitted += 1;
    c.review = { id: res.body.review.id, status: 'pending' };
    c.state = 'in_review';
  } else if (res.status === 422 && definitelyRefused(allowedStatuses) && !(method.kind === 'card' && method.number === BAD_LUHN) && !ungated.has(422) && gateBlocks(m, c) && c.state !== 'expired' && (c.state === 'open' || res.body?.error === BLOCKED)) {
    // Only an attempt that reached the gates blocks: a card number failing Luhn is refused as bad
    // input before them and leaves the checkout open (seed 83009: the model then expected 422), and
    // so is an amount the checkout refuses by itself, over a balance (seed 779191).
    // Nor does one refused because a charge may still be in progress (the model's `unknown`):
    // that refusal comes before the gates, so only the service's "blocked" answer says it blocked
    // (seed 147503616, path 192: a pending bank charge, KYC then required, a card attempt refused
    // as busy; the bank charge failed and the checkout took the next attempt).
    // A restriction blocks every new charge; whether it closes the checkout too, the view says.
    if (!m.restricted) c.state = 'blocked';
    else if ((await wallet(w, c, 'GET')).body?.state === 'blocked') c.state = 'blocked';
  }
  return res;
}

class Attempt extends Base {
  constructor(readonly checkout: number, readonly method: Method, readonly amount: AmountPick, readonly badLuhn = false) {
    super();
  }
  protected override needs: Needs = 'checkout';
  async act(m: Model, w: World) {
    const c = pick(m.checkouts, this.checkout)!;
    const method: Method = this.badLuhn ? { kind: 'card', number: BAD_LUHN } : this.method;
    const statuses = this.badLuhn ? new Set([422]) : allowedAttemptStatuses(m, c, amountFor(m, c, this.amount), Date.now());
    await attemptOnce(m, w, c, method, this.amount, statuses, `${this} on ${describe(c)} ${c.state}`);
  }
  toString() {
    return `Attempt(checkout #${this.checkout}, ${this.badLuhn ? 'card failing Luhn' : methodLabel(this.method)}, amount ${this.amount})`;
  }
}

class ConcurrentAttempts extends Base {
  constructor(readonly checkout: number, readonly methods: Method[], readonly amount: AmountPick) {
    super();
  }
  protected override needs: Needs = 'checkout';
  async act(m: Model, w: World) {
    const c = pick(m.checkouts, this.checkout)!;
    const predicted = allowedAttemptStatuses(m, c, amountFor(m, c, this.amount), Date.now());
    const each = new Set([...predicted, 422]);
    const answers = await Promise.all(this.methods.map((method, i) => attemptOnce(m, w, c, method, this.amount, each, `${this} [${i}] on ${describe(c)}`, false)));
    const statuses = answers.map((a) => a.status);
    expectThat(statuses.filter((s) => s === 202).length <= 1, `${this}: more than one review: ${statuses.join(', ')}`, 'concurrent_one_review');
    if (!allowedAfterAnswer(c, predicted, Date.now()).has(422)) expectThat(statuses.some((s) => s !== 422), `${this}: every concurrent attempt was refused on a fresh checkout: ${answers.map((a) => a.text).join(' | ')}`, 'concurrent_one_admitted');
  }
  toString() {
    return `ConcurrentAttempts(checkout #${this.checkout}, [${this.methods.map(methodLabel).join(', ')}], amount ${this.amount})`;
  }
}

/**
 * An attempt on a withdrawal whose hold, while still unanswered, sees a simulator move of its
 * charge; the hold is answered after the move.
 */
class AttemptWithMoveDuringHold extends Base {
  constructor(readonly checkout: number, readonly method: Method, readonly amount: AmountPick, readonly to: ChargeStatus) {
    super();
  }
  protected override needs: Needs = 'withdrawal';
  protected override sandboxOnly = true;
  async act(m: Model, w: World) {
    const c = pick(m.checkouts.filter((x) => x.type === 'withdrawal'), this.checkout)!;
    let moved: Promise<Awaited<ReturnType<typeof admin>>> | undefined;
    w.endpoint.route(w.route).onHold = async (hold) => {
      moved = admin(w, 'POST', `/sandbox/charges/${hold.body.data.charge.id}/transition`, { to: this.to });
      await moved.catch(() => undefined);
    };
    try {
      const statuses = allowedAttemptStatuses(m, c, amountFor(m, c, this.amount), Date.now());
      await attemptOnce(m, w, c, this.method, this.amount, statuses, `${this} on ${describe(c)}`);
    } finally {
      w.endpoint.route(w.route).onHold = undefined;
    }
    // A move of a withdrawal's charge while its hold is unanswered is refused, except a failure:
    // a processor may fail a charge at any time (the accepted hold is then released).
    if (moved) allowed(await moved, new Set([this.to === 'failed' ? 200 : 422]), `${this}: the move during the hold`, 'move_during_hold');
  }
  toString() {
    return `AttemptWithMoveDuringHold(withdrawal #${this.checkout}, ${methodLabel(this.method)}, amount ${this.amount}, move to ${this.to})`;
  }
}

/**
 * An attempt on a withdrawal whose charge the simulator holds as soon as it exists (before the
 * workflow's own hold, most of the time) and at once moves on: the workflow must follow the charge
 * wherever the simulator left it (audit: a charge it found pending was left pending, and the
 * checkout expired around it).
 */
class AttemptWithSimulatorHoldFirst extends Base {
  constructor(readonly checkout: number, readonly method: Method, readonly amount: AmountPick, readonly to: 'pending' | 'succeeded' | 'failed') {
    super();
  }
  protected override needs: Needs = 'withdrawal';
  protected override sandboxOnly = true;
  async act(m: Model, w: World) {
    const c = pick(m.checkouts.filter((x) => x.type === 'withdrawal'), this.checkout)!;
    const known = new Set(m.charges.map((x) => x.id));
    let answered = false;
    const statuses = allowedAttemptStatuses(m, c, amountFor(m, c, this.amount), Date.now());
    const answering = attemptOnce(m, w, c, this.method, this.amount, statuses, `${this} on ${describe(c)}`).finally(() => (answered = true));
    const moves: Array<Awaited<ReturnType<typeof admin>>> = [];
    while (!answered) {
      const charges = await w.service.deps.db('charges').where({ checkout_id: c.id }).select('id');
      const fresh = charges.find((x: { id: string }) => !known.has(x.id));
      if (fresh) {
        const held = await admin(w, 'POST', `/sandbox/charges/${fresh.id}/transition`, { to: 'held' });
        moves.push(held);
        if (held.status === 200 && held.body.status === 'held') moves.push(await admin(w, 'POST', `/sandbox/charges/${fresh.id}/transition`, { to: this.to }));
        if (moves.at(-1)?.body?.status === 'succeeded') c.state = 'completed';
        break;
      }
      await sleep(2);
    }
    await answering;
    for (const move of moves) allowed(move, new Set([200, 422]), `${this}: a simulator move`, 'simulator_answer');
  }
  toString() {
    return `AttemptWithSimulatorHoldFirst(withdrawal #${this.checkout}, ${methodLabel(this.method)}, amount ${this.amount}, then ${this.to})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Reviews

class DecideReview extends Base {
  constructor(readonly review: number, readonly approve: boolean) {
    super();
  }
  protected override needs: Needs = 'review';
  async act(m: Model, w: World) {
    const c = pick(m.checkouts.filter((x) => x.review), this.review)!;
    const review = c.review!;
    const res = await admin(w, 'POST', `/reviews/${review.id}/${this.approve ? 'approve' : 'decline'}`);
    // An approval is re-checked when made: a restriction, and the KYC gate as the settings stand
    // now, refuse it, and the review stays pending.
    const refused = this.approve && (m.restricted || kycBlocks(m, c));
    allowed(res, new Set([review.status === 'pending' && !refused ? 200 : 422]), `${this} (${review.status})`, 'review_answer');
    if (refused && review.status === 'pending') expectThat(res.body.error === 'Approval refused.', `${this}: answered ${res.text}`, 'review_answer');
    if (res.status !== 200) return;
    expectThat(res.body.status === (this.approve ? 'approved' : 'declined'), `${this}: answered ${res.text}`, 'review_answer');
    review.status = res.body.status;
    c.state = this.approve ? 'unknown' : 'blocked';
    // Expiry paused while the review was pending: the wallet shows the new deadline.
    const view = await wallet(w, c, 'GET');
    if (view.body?.expires_at) c.expiresAt = Date.parse(view.body.expires_at);
  }
  toString() {
    return `${this.approve ? 'Approve' : 'Decline'}Review(#${this.review})`;
  }
}


// ---------------------------------------------------------------------------------------------
// Restrictions (production: a verified KYC name that differs from the profile) and their lifting

/**
 * Restricts the customer as a production merchant sees it happen: KYC required for the picked
 * checkout's type, a verified KYC record whose last name differs from the profile, then an
 * attempt on that checkout, which the gates block, restricting the customer.
 */
class Restrict extends Base {
  constructor(readonly checkout: number, readonly method: Method, readonly amount: AmountPick) {
    super();
  }
  protected override needs: Needs = 'checkout';
  override async check(m: Readonly<Model>) {
    return m.environment === 'production' && !m.restricted && m.checkouts.length > 0;
  }
  async act(m: Model, w: World) {
    const c = pick(m.checkouts, this.checkout)!;
    const kycFor = [...new Set([...m.kycFor, c.type])];
    const patched = await admin(w, 'PATCH', `/merchants/${w.merchant.id}/settings`, { kyc_required_for: kycFor });
    allowed(patched, new Set([200]), `${this}: kyc_required_for`, 'settings_answer');
    m.kycFor = kycFor;
    await submitKyc(m, w, true, OTHER_LAST_NAME, `${this}: the KYC record`);
    const statuses = allowedAttemptStatuses(m, c, amountFor(m, c, this.amount), Date.now());
    await attemptOnce(m, w, c, this.method, this.amount, statuses, `${this} on ${describe(c)} ${c.state}`);
  }
  toString() {
    return `Restrict(checkout #${this.checkout}, KYC name ${OTHER_LAST_NAME}, ${methodLabel(this.method)}, amount ${this.amount})`;
  }
}

/**
 * Lifts the restriction from the dashboard, with the profile's last name first corrected to the
 * KYC record's (or not: the next gated attempt then restricts the customer again).
 */
class Unrestrict extends Base {
  constructor(readonly fixName: boolean) {
    super();
  }
  override async check(m: Readonly<Model>) {
    return m.restricted;
  }
  async act(m: Model, w: World) {
    if (this.fixName && m.kycLastName !== null && m.kycLastName !== m.profileLastName) {
      const res = await api(w, 'PATCH', `/customers/${w.customerId}`, { last_name: m.kycLastName });
      allowed(res, new Set([200]), `${this}: the profile's name`, 'customer_answer');
      m.profileLastName = m.kycLastName;
    }
    const res = await admin(w, 'POST', `/customers/${w.customerId}/unrestrict`);
    allowed(res, new Set([200]), this.toString(), 'unrestrict_answer');
    expectThat(res.body?.restricted === false, `${this}: answered ${res.text}`, 'unrestrict_answer');
    m.restricted = false;
  }
  toString() {
    return `Unrestrict(${this.fixName ? 'profile name corrected first' : 'name left as it is'})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Velocity limits (card testing: one card number, many expiry dates)

class SetVelocity extends Base {
  constructor(readonly enabled: boolean, readonly cardPerHour: number) {
    super();
  }
  async act(m: Model, w: World) {
    // The IP limit stays out of reach: every request of the suite comes from 127.0.0.1.
    const res = await admin(w, 'PATCH', `/merchants/${w.merchant.id}/settings`, { velocity_limits: { enabled: this.enabled, card_attempts_per_hour: this.cardPerHour, ip_attempts_per_hour: 100_000 } });
    allowed(res, new Set([200]), this.toString(), 'settings_answer');
    m.velocity = { enabled: this.enabled, cardPerHour: this.cardPerHour };
  }
  toString() {
    return `SetVelocity(${this.enabled ? `on, ${this.cardPerHour} per card per hour` : 'off'})`;
  }
}

/**
 * A card tester: one card number with a different expiry date each time, each on a new deposit
 * checkout (so each attempt can be admitted, and only the velocity limit stops the guessing).
 */
class GuessExpiry extends Base {
  constructor(readonly number: string, readonly expiries: number[]) {
    super();
  }
  async act(m: Model, w: World) {
    for (const expiry of this.expiries) {
      await new CreateCheckout('preset_deposit', 2_500).act(m, w);
      const c = m.checkouts.at(-1)!;
      const method: Method = { kind: 'card', number: this.number, expiry };
      const statuses = allowedAttemptStatuses(m, c, undefined, Date.now());
      await attemptOnce(m, w, c, method, 'small', statuses, `${this} [${methodLabel(method)}] on ${describe(c)} ${c.state}`);
    }
  }
  toString() {
    return `GuessExpiry(card ${this.number}, ${this.expiries.length} expiry dates)`;
  }
}

// ---------------------------------------------------------------------------------------------
// The simulator and refunds

async function chargeRow(w: World, id: string) {
  const charge = await w.service.deps.db('charges').where({ id }).first();
  const pm = await w.service.deps.db('payment_methods').where({ id: charge.payment_method_id }).first();
  return { ...charge, payment_type: pm.payment_type as string };
}

const STABLE: ReadonlySet<string> = new Set(['failed', 'returned', 'cancelled', 'refunded', 'voided']);
const CARD_LIKE = new Set(['card', 'apple_pay', 'google_pay', 'paypal', 'venmo']);

function refundable(charge: any): boolean {
  return charge.transaction_type === 'credit' && CARD_LIKE.has(charge.payment_type) && REFUND_CAPABLE_PROCESSORS.has(charge.processor);
}

class SimulatorMove extends Base {
  constructor(readonly charge: number, readonly to: ChargeStatus) {
    super();
  }
  protected override needs: Needs = 'charge';
  protected override sandboxOnly = true;
  async act(m: Model, w: World) {
    const target = pick(m.charges, this.charge)!;
    const before = await chargeRow(w, target.id);
    const edge = findTransition(before.status, this.to) !== undefined;
    let statuses = new Set([200, 422]);
    // A charge at rest cannot race the workflow: the table and the issue's rules decide.
    if (STABLE.has(before.status) || before.status === 'succeeded') {
      if (!edge) statuses = new Set([422]);
      else if (this.to === 'refunded' && !refundable(before)) statuses = new Set([422]);
    }
    // Only a withdrawal is ever held. (A withdrawal leaving created for pending or succeeded is
    // caught by the invariants: its hold may have been accepted between the read and the move.)
    if (before.status === 'created' && before.transaction_type === 'credit' && this.to === 'held') statuses = new Set([422]);
    const body = { to: this.to, ...(this.to === 'failed' ? { failure_code: 'processor_declined' } : {}) };
    const res = await admin(w, 'POST', `/sandbox/charges/${target.id}/transition`, body);
    allowed(res, statuses, `${this} from ${before.status} (${before.transaction_type}, ${before.payment_type})`, 'simulator_answer');
    if (res.status !== 200) return;
    const outcomes = this.to === 'held' ? ['held', 'failed'] : [this.to];
    expectThat(outcomes.includes(res.body.status), `${this}: answered status ${res.body.status}`, 'simulator_answer');
    if (res.body.status === 'succeeded') target.checkout.state = 'completed';
  }
  toString() {
    return `SimulatorMove(charge #${this.charge}, to ${this.to})`;
  }
}

export type RefundBody = 'none' | 'empty' | 'amount';

class Refund extends Base {
  constructor(readonly charge: number, readonly viaAdmin: boolean, readonly body: RefundBody) {
    super();
  }
  protected override needs: Needs = 'charge';
  async act(m: Model, w: World) {
    const target = pick(m.charges, this.charge)!;
    const before = await chargeRow(w, target.id);
    let statuses = new Set([422]);
    const racingAutoRefund = before.amount_cents === 108;
    if (this.body !== 'amount' && refundable(before) && target.cardNumber !== '4000000000005126') {
      if (before.status === 'succeeded') statuses = new Set(racingAutoRefund ? [200, 422] : [200]);
      else if (!STABLE.has(before.status)) statuses = new Set([200, 422]);
    }
    const path = `/charges/${target.id}/refund`;
    const options = this.body === 'none' ? {} : { body: this.body === 'empty' ? {} : { amount_cents: 100 } };
    const res = this.viaAdmin
      ? await call(w, 'POST', `/admin/v1${path}`, { token: w.service.adminToken, ...options })
      : await call(w, 'POST', `/api/v1${path}`, { token: w.merchant.api_key, ...options });
    allowed(res, statuses, `${this} of a ${before.status} ${before.transaction_type} ${before.payment_type} charge on ${before.processor}`, 'refund_answer');
    if (res.status === 200) {
      expectThat(res.body.status === 'refunded', `${this}: answered 200 with status ${res.body.status}`, 'refund_answer');
      m.refunded.add(target.id);
    }
  }
  toString() {
    return `Refund(charge #${this.charge}, ${this.viaAdmin ? 'admin' : 'public'}, body ${this.body})`;
  }
}

/** A refund racing a processor-side reversal of the same charge: one of the two loses cleanly. */
class RefundRace extends Base {
  constructor(readonly charge: number, readonly delayMs: number, readonly to: 'returned' | 'failed' | 'voided') {
    super();
  }
  protected override needs: Needs = 'deposit_charge';
  protected override sandboxOnly = true;
  async act(m: Model, w: World) {
    const target = pick(m.charges.filter((c) => c.credit), this.charge)!;
    const [refund, move] = await Promise.all([
      api(w, 'POST', `/charges/${target.id}/refund`),
      sleep(this.delayMs).then(() => admin(w, 'POST', `/sandbox/charges/${target.id}/transition`, { to: this.to })),
    ]);
    allowed(refund, new Set([200, 422]), `${this}: the refund`, 'refund_race');
    allowed(move, new Set([200, 422]), `${this}: the move`, 'refund_race');
    if (refund.status === 200) {
      expectThat(refund.body.status === 'refunded', `${this}: the refund answered 200 with status ${refund.body.status}`, 'refund_race');
      m.refunded.add(target.id);
    }
    expectThat(!(refund.status === 200 && move.status === 200), `${this}: both the refund and the move to ${this.to} were answered 200`, 'refund_race');
  }
  toString() {
    return `RefundRace(deposit charge #${this.charge}, ${this.to} after ${this.delayMs} ms)`;
  }
}

/**
 * Subscriptions: moves a paid subscription's test clock forward by whole periods, so
 * renewals (and, with a failing card, dunning) run inside the sequence. The subscription
 * invariants then check one paid charge per period and nothing charged once cancelled.
 */
class AdvanceSubscriptionClock extends Base {
  constructor(readonly subscription: number, readonly days: number) {
    super();
  }
  async act(_m: Model, w: World) {
    const subscriptions = await w.service.deps.db('subscriptions').where({ merchant_id: w.merchant.id }).orderBy('created_at');
    if (subscriptions.length === 0) return;
    const target = subscriptions[this.subscription % subscriptions.length];
    const res = await admin(w, 'POST', `/subscriptions/${target.id}/test_clock/advance`, { seconds: this.days * 86_400 });
    // A cancelled subscription's clock is refused (422); a live one moves (200), unless dunning
    // cancels it in the meantime.
    allowed(res, new Set(target.status === 'cancelled' ? [422] : [200, 422]), `${this} (${target.status})`, 'subscription_clock');
  }
  toString() {
    return `AdvanceSubscriptionClock(#${this.subscription}, ${this.days} days)`;
  }
}

/**
 * A checkout's expiry timer running late, as under a burst of deadlines: the database's deadline
 * moves to now while the workflow's timer waits for the old one, so the expiry sweep
 * (src/checkouts/expiry.ts) must expire it, unless a charge in progress holds it, and the timer
 * must later find it expired. Only for timers due within 10 s, so the run can wait for them.
 */
class LateTimer extends Base {
  constructor(readonly checkout: number) {
    super();
  }
  protected override needs: Needs = 'checkout';
  async act(m: Model, w: World) {
    const c = pick(m.checkouts, this.checkout)!;
    if (c.timerAt !== undefined || c.expiresAt - Date.now() > 10_000) return;
    // clock_timestamp(), not now(): taken once the row is locked, so a charge whose insert held the
    // row (and checked the old deadline) is never dated after the new one.
    const rows = await w.service.deps.db('checkouts')
      .where({ id: c.id, state: 'open' })
      .update({ expires_at: w.service.deps.db.raw('clock_timestamp()') })
      .returning('expires_at');
    if (!rows.length) return;
    c.timerAt = c.expiresAt;
    c.expiresAt = new Date(rows[0].expires_at).getTime();
  }
  toString() {
    return `LateTimer(checkout #${this.checkout})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Resends, replays and signing-secret rolls (admin)

/** Resends one of the merchant's enabled outbox events: a new delivery series, always accepted. */
class Resend extends Base {
  constructor(readonly event: number) {
    super();
  }
  async act(_m: Model, w: World) {
    const events = await w.service.deps.db('events').where({ merchant_id: w.merchant.id, enabled: true, channel: 'outbox' }).orderBy('seq');
    const event = pick(events, this.event);
    if (!event) return;
    const res = await admin(w, 'POST', `/events/${event.id}/resend`);
    allowed(res, new Set([202]), this.toString(), 'resend_answer');
  }
  toString() {
    return `Resend(event #${this.event})`;
  }
}

class Replay extends Base {
  constructor(readonly failedOnly: boolean) {
    super();
  }
  async act(_m: Model, w: World) {
    const res = await admin(w, 'POST', '/events/replay', { merchant_id: w.merchant.id, failed_only: this.failedOnly });
    allowed(res, new Set([202]), this.toString(), 'replay_answer');
  }
  toString() {
    return `Replay(${this.failedOnly ? 'failed only' : 'all'})`;
  }
}

/**
 * Rolls the signing secret: refused (422) while an earlier roll's overlap runs unless forced.
 * `double_click` sends the roll twice in a row, as a second click would; `keyed_retry` sends it
 * twice at once under one Idempotency-Key, and both must answer the same secret.
 */
class RollSecret extends Base {
  constructor(readonly overlapSeconds: number, readonly force: boolean, readonly mode: 'once' | 'double_click' | 'keyed_retry') {
    super();
  }
  async act(m: Model, w: World) {
    const body = { overlap_seconds: this.overlapSeconds, ...(this.force ? { force: true } : {}) };
    const path = `/admin/v1/merchants/${w.merchant.id}/webhook_secret/roll`;
    const send = (key?: string) => call(w, 'POST', path, { token: w.service.adminToken, body, ...(key ? { headers: { 'idempotency-key': key } } : {}) });
    if (this.mode === 'keyed_retry') {
      const key = `roll-${w.merchant.id}-${w.trace.length}`;
      const [res, again] = await Promise.all([send(key), send(key)]);
      expectThat(again.status === res.status && JSON.stringify(again.body) === JSON.stringify(res.body), `${this}: a retry with the same key answered ${again.status} ${again.text}, the first ${res.status} ${res.text}`, 'roll_idempotent');
      return this.expect(m, w, res);
    }
    await this.expect(m, w, await send());
    if (this.mode === 'double_click') await this.expect(m, w, await send());
  }
  /** The model's answer: the server's clock decides the overlap, so a roll within a second of its end may go either way. */
  private async expect(m: Model, w: World, res: Awaited<ReturnType<typeof call>>) {
    const inOverlap = Date.now() < m.secretOverlapUntil - 1_000;
    const open = Date.now() > m.secretOverlapUntil + 1_000;
    allowed(res, this.force || open ? new Set([201]) : inOverlap ? new Set([422]) : new Set([201, 422]), this.toString(), 'roll_answer');
    if (res.status !== 201) return;
    w.secrets.push(res.body.webhook_signing_secret);
    m.secretOverlapUntil = Date.parse(res.body.previous_webhook_secret_expires_at);
  }
  toString() {
    return `RollSecret(${this.overlapSeconds} s${this.force ? ', forced' : ''}, ${this.mode.replace('_', ' ')})`;
  }
}

class Wait extends Base {
  constructor(readonly ms: number) {
    super();
  }
  async act() {
    await sleep(this.ms);
  }
  toString() {
    return `Wait(${this.ms} ms)`;
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const anyMethodArb: fc.Arbitrary<Method> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CARDS).map((number) => ({ kind: 'card' as const, number })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CARDS), fc.nat(EXPIRIES.length - 1)).map(([number, expiry]) => ({ kind: 'card' as const, number, expiry })) },
  { weight: 2, arbitrary: fc.constantFrom('000123456789', '000123450002').map((account) => ({ kind: 'bank' as const, account })) },
  { weight: 1, arbitrary: fc.constantFrom('0x52908400098527886E0F7030069857D2E4169EE7', '0x52908400098527886E0F7030069857D2E416dead').map((address) => ({ kind: 'crypto' as const, address })) },
  { weight: 1, arbitrary: fc.constantFrom('apple_pay', 'google_pay', 'paypal', 'venmo' as const).map((type) => ({ kind: 'wallet' as const, type })) },
);
/** Stripe takes card deposits only: its sequences pay by card and open deposit checkouts. */
const cardArb: fc.Arbitrary<Method> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CARDS).map((number) => ({ kind: 'card' as const, number })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CARDS), fc.nat(EXPIRIES.length - 1)).map(([number, expiry]) => ({ kind: 'card' as const, number, expiry })) },
);
export const DEPOSIT_FLOWS: Flow[] = ['deposit', 'preset_deposit', 'purchase', 'subscription'];

const amountArb: fc.Arbitrary<AmountPick> = fc.constantFrom('below_threshold', 'at_threshold', 'above_threshold', 'small', 'balance', 'over_balance', 'auto_refund');
const index = fc.nat(20);
const eventsArb = fc.subarray([...OPTIONAL_EVENT_TYPES].filter((t) => t.startsWith('checkout.')));
const thresholdArb = fc.constantFrom(100, 5_000);

export const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Answer>('ok', 'refuse402', 'error500', 'late_ok') },
  { weight: 1, arbitrary: fc.constant<Answer>('slow') },
);

/** The commands; with `stripe`, those a Stripe merchant supports (card deposits, no processor change, no holds). */
export function commandArbitrary(options: { stripe?: boolean } = {}): fc.Arbitrary<Cmd> {
  const w = (weight: number, arbitrary: fc.Arbitrary<Cmd>) => ({ weight, arbitrary });
  const methodArb = options.stripe ? cardArb : anyMethodArb;
  const flows: Flow[] = options.stripe ? DEPOSIT_FLOWS : [...FLOWS, 'balance_withdrawal', 'preset_withdrawal'];
  const sandboxOnly = (weight: number, arbitrary: fc.Arbitrary<Cmd>) => w(options.stripe ? 0 : weight, arbitrary);
  const weighted = [
    w(2, fc.record({ enabled: fc.boolean(), min: thresholdArb }).map(({ enabled, min }) => new PatchSettings({ review: { enabled, min_amount_cents: min } }))),
    w(1, eventsArb.map((events) => new PatchSettings({ enabled_events: events }))),
    w(1, fc.constantFrom(3, 6, 60).map((s) => new PatchSettings({ checkout_expiry_seconds: s }))),
    sandboxOnly(1, fc.constantFrom('sandbox_alpha', 'sandbox_beta', 'sandbox_gamma').map((p) => new PatchSettings({ card_processor: p }))),
    w(1, fc.record({ kyc: fc.subarray(['deposit', 'withdrawal']), geo: fc.subarray(['deposit', 'withdrawal']) }).map(({ kyc, geo }) => new PatchSettings({ kyc_required_for: kyc, geo_required_for: geo }))),
    w(1, fc.boolean().map((v) => new SubmitKyc(v))),
    w(1, fc.tuple(index, fc.boolean()).map(([c, inside]) => new DevicePing(c, inside))),
    w(2, fc.tuple(answerArb, answerArb).map(([hold, delivery]) => new SetAnswers(hold, delivery))),
    w(5, fc.tuple(fc.constantFrom(...flows), fc.constantFrom(99, 100, 108, 2_500, 5_000, 10_000, 20_000)).map(([flow, amount]) => new CreateCheckout(flow, amount))),
    w(12, fc.tuple(index, methodArb, amountArb).map(([c, m, a]) => new Attempt(c, m, a))),
    w(1, fc.tuple(index, amountArb).map(([c, a]) => new Attempt(c, { kind: 'card', number: BAD_LUHN }, a, true))),
    w(2, fc.tuple(index, fc.array(methodArb, { minLength: 2, maxLength: 5 }), amountArb).map(([c, ms, a]) => new ConcurrentAttempts(c, ms, a))),
    sandboxOnly(2, fc.tuple(index, methodArb, amountArb, fc.constantFrom<ChargeStatus>('pending', 'succeeded', 'failed', 'held', 'cancelled')).map(([c, m, a, to]) => new AttemptWithMoveDuringHold(c, m, a, to))),
    sandboxOnly(2, fc.tuple(index, methodArb, amountArb, fc.constantFrom('pending' as const, 'succeeded' as const, 'failed' as const)).map(([c, m, a, to]) => new AttemptWithSimulatorHoldFirst(c, m, a, to))),
    // Reviewers mostly approve: what happens after an approval is where the money is.
    w(6, fc.tuple(index, fc.integer({ min: 0, max: 3 })).map(([r, n]) => new DecideReview(r, n > 0))),
    w(3, fc.tuple(index, fc.constantFrom(...CHARGE_STATUSES)).map(([c, to]) => new SimulatorMove(c, to))),
    w(2, fc.tuple(index, fc.boolean(), fc.constantFrom<RefundBody>('none', 'empty', 'amount')).map(([c, viaAdmin, body]) => new Refund(c, viaAdmin, body))),
    w(1, fc.tuple(index, fc.integer({ min: 0, max: 150 }), fc.constantFrom('returned', 'failed', 'voided' as const)).map(([c, d, to]) => new RefundRace(c, d, to))),
    w(2, fc.constantFrom(500, 1_500, 3_500).map((ms) => new Wait(ms))),
    w(1, index.map((c) => new LateTimer(c))),
    // Restrict runs only at production merchants (half the sequences), and once at a time.
    w(8, fc.tuple(index, methodArb, amountArb).map(([c, m, a]) => new Restrict(c, m, a))),
    w(2, fc.integer({ min: 0, max: 3 }).map((n) => new Unrestrict(n > 0))),
    w(2, fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom(1, 2, 3, 5)).map(([on, limit]) => new SetVelocity(on > 0, limit))),
    w(3, fc.tuple(fc.constantFrom(...CARDS), fc.array(fc.nat(EXPIRIES.length - 1), { minLength: 2, maxLength: 5 })).map(([n, e]) => new GuessExpiry(n, e))),
    w(1, fc.tuple(index, fc.constantFrom(1, 31, 95)).map(([sub, days]) => new AdvanceSubscriptionClock(sub, days))),
    w(2, index.map((e) => new Resend(e))),
    w(2, fc.boolean().map((failedOnly) => new Replay(failedOnly))),
    w(2, fc.tuple(fc.constantFrom(0, 2, 3600), fc.boolean(), fc.constantFrom('once' as const, 'double_click' as const, 'keyed_retry' as const)).map(([overlap, force, mode]) => new RollSecret(overlap, force, mode))),
  ];
  return fc.oneof(...weighted.filter((entry) => entry.weight > 0));
}

