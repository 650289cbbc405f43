/**
 * The reference model: what the contract (with the decisions in docs/decisions.md) lets each command
 * answer, from what the sequence has done so far. Where timing makes an answer
 * nondeterministic (a settlement racing an attempt, an expiry racing a click) the model
 * allows a set of statuses; where the contract is definite (a second review on one checkout,
 * a move the state table does not list, a refund with a body) it allows exactly one.
 */
import type { Answer } from './merchant-endpoint';

export type CheckoutType = 'deposit' | 'withdrawal';
export type Flow = 'deposit' | 'preset_deposit' | 'purchase' | 'subscription' | 'balance_withdrawal' | 'preset_withdrawal';
export type KnownState = 'open' | 'in_review' | 'completed' | 'blocked' | 'expired' | 'unknown';

export interface ModelCheckout {
  id: string;
  secret: string;
  type: CheckoutType;
  flow: Flow;
  /** The preset amount (fixed amount or line items total), null when the customer picks. */
  preset: number | null;
  balance: number | null;
  /** When the checkout expires unless a review paused it (ms since the epoch, server clock). */
  expiresAt: number;
  /**
   * Set by LateTimer: the deadline the checkout's workflow timer still waits for, after the
   * database's was moved to now (a timer running late, left to the expiry sweep).
   */
  timerAt?: number;
  state: KnownState;
  review: { id: string; status: 'pending' | 'approved' | 'declined' } | null;
  /** Attempts answered 201 or 202. */
  admitted: number;
}

export interface ModelCharge {
  id: string;
  checkout: ModelCheckout;
  credit: boolean;
  amount: number;
  cardNumber: string | null;
  processor: string;
  paymentType: string;
}

/** One card attempt admitted (201 or 202) while velocity limits were on, with the limit then. */
export interface CardAttempt {
  number: string;
  at: number;
  limit: number;
}

export interface Model {
  environment: 'sandbox' | 'production';
  review: { enabled: boolean; min: number };
  enabledEvents: string[];
  expirySeconds: number;
  processor: 'sandbox_alpha' | 'sandbox_beta' | 'sandbox_gamma' | 'stripe';
  kycFor: CheckoutType[];
  geoFor: CheckoutType[];
  kyc: 'none' | 'verified' | 'unverified';
  /** The last names of the customer's latest KYC record and of its profile (production compares them). */
  kycLastName: string | null;
  profileLastName: string;
  /** Whether the customer is restricted (as the database says after each attempt). */
  restricted: boolean;
  velocity: { enabled: boolean; cardPerHour: number };
  cardAttempts: CardAttempt[];
  /** The first device ping decides: a geo check is reused for 30 minutes. */
  geo: 'none' | 'passed' | 'failed';
  holdAnswer: Answer;
  deliveryAnswer: Answer;
  /** Answers past 10 s cost real time: each run may use only a few. */
  slowLeft: number;
  checkouts: ModelCheckout[];
  charges: ModelCharge[];
  /** Charges a 201 answer returned, with whether the review rule applied to their attempt. */
  answeredCharges: Map<string, { needsReview: boolean }>;
  /** Refunds answered 200 (the charge must be refunded and have a refunds row). */
  refunded: Set<string>;
  /** Events seen delivered: a later resend or replay never takes that back. */
  delivered: Set<string>;
  /** Until when (ms since the epoch) a rolled signing secret still signs: a second roll before then is refused unless forced. */
  secretOverlapUntil: number;
}

export function initialModel(init: { environment: 'sandbox' | 'production'; review: { enabled: boolean; min: number }; enabledEvents: string[]; expirySeconds: number; holdAnswer: Answer; slowLeft: number; processor?: Model['processor'] }): Model {
  return {
    environment: init.environment,
    review: init.review,
    enabledEvents: init.enabledEvents,
    expirySeconds: init.expirySeconds,
    processor: init.processor ?? 'sandbox_alpha',
    kycFor: [],
    geoFor: [],
    kyc: 'none',
    kycLastName: null,
    profileLastName: 'Lovelace',
    restricted: false,
    velocity: { enabled: false, cardPerHour: 10 },
    cardAttempts: [],
    geo: 'none',
    holdAnswer: init.holdAnswer,
    deliveryAnswer: 'ok',
    slowLeft: init.slowLeft,
    checkouts: [],
    charges: [],
    answeredCharges: new Map(),
    refunded: new Set(),
    delivered: new Set(),
    secretOverlapUntil: 0,
  };
}

export function needsReview(model: Model, checkout: ModelCheckout, amount: number): boolean {
  return checkout.type === 'withdrawal' && model.review.enabled && amount >= model.review.min;
}

/** Whether the customer's verified KYC name differs from its profile where that matters (production). */
export function kycNameMismatch(model: Model): boolean {
  return model.environment === 'production' && model.kyc === 'verified' && model.kycLastName !== model.profileLastName;
}

/**
 * Whether the KYC gate blocks this checkout now: no verified record, or (production) a verified
 * name that differs from the profile, which also restricts the customer.
 */
export function kycBlocks(model: Model, checkout: ModelCheckout): boolean {
  return model.kycFor.includes(checkout.type) && (model.kyc !== 'verified' || kycNameMismatch(model));
}

/**
 * Whether a gate blocks an attempt on this checkout: a restriction blocks every new charge of
 * the customer, whatever the checkout's type and the merchant's kyc_required_for, until lifted.
 */
export function gateBlocks(model: Model, checkout: ModelCheckout): boolean {
  if (model.restricted) return true;
  if (kycBlocks(model, checkout)) return true;
  if (model.geoFor.includes(checkout.type) && model.geo !== 'passed') return true;
  return false;
}

const MARGIN_MS = 1_500;

/**
 * The statuses an attempt may be answered with. 422 is allowed whenever the checkout may be
 * busy (a charge pending or held) or near its expiry; the definite cases are exact.
 */
export function allowedAttemptStatuses(model: Model, checkout: ModelCheckout, amount: number | undefined, now: number): Set<number> {
  // With velocity limits on, any attempt may be over one of them (429), before it is admitted.
  const refused = new Set(model.velocity.enabled ? [422, 429] : [422]);
  if (amount === undefined) return checkout.preset === null ? refused : allowedAttemptStatuses(model, checkout, checkout.preset, now);
  if (checkout.balance !== null && amount > checkout.balance) return refused;
  if (['completed', 'blocked', 'expired', 'in_review'].includes(checkout.state)) return refused;
  const pastExpiry = now > checkout.expiresAt + MARGIN_MS;
  const nearExpiry = now > checkout.expiresAt - MARGIN_MS;
  if (pastExpiry) return refused;
  if (gateBlocks(model, checkout)) return refused;
  const limited = model.velocity.enabled ? [429] : [];
  if (needsReview(model, checkout, amount)) {
    // One review per checkout: an attempt that would need a second one is refused.
    if (checkout.review) return refused;
    return checkout.admitted === 0 && !nearExpiry ? new Set([202, ...limited]) : new Set([202, 422, ...limited]);
  }
  // A checkout nobody paid on yet, far from its expiry, takes the attempt.
  return checkout.admitted === 0 && !nearExpiry ? new Set([201, ...limited]) : new Set([201, 422, ...limited]);
}

/** Whether the model's statuses for an attempt leave no room for it to be taken (it is refused for sure). */
export function definitelyRefused(statuses: Set<number>): boolean {
  return !statuses.has(201) && !statuses.has(202);
}

/**
 * An attempt sent before the deadline's margin may still be answered after the deadline (a loaded
 * machine): its charge is then refused by the database's clock (422), never made late. The
 * statuses allowed for an answer that arrived at `answeredAt` widen to include that refusal.
 */
export function allowedAfterAnswer(checkout: ModelCheckout, allowed: Set<number>, answeredAt: number): Set<number> {
  const couldBeTaken = allowed.has(201) || allowed.has(202);
  return couldBeTaken && answeredAt > checkout.expiresAt - MARGIN_MS ? new Set([...allowed, 422]) : allowed;
}

export function describe(checkout: ModelCheckout): string {
  return `${checkout.flow}(${checkout.preset ?? checkout.balance ?? 'any'})`;
}
