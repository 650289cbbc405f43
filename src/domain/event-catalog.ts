// The webhook event catalog and the `data` payloads each event carries, as the contract's
// Events section fixes them. Builders pick fields explicitly so a database row with extra
// columns can never leak into a merchant's webhook.
import type { ChargeStatus } from './charge-states';
import { ALWAYS_ON_EVENT_TYPES, EVENT_TYPES, OPTIONAL_EVENT_TYPES, type EventType } from './event-types';
import type { CheckoutType } from './settings';
import { incompleteSubscription, type SubscriptionView } from './subscriptions';
import type { SubscriptionInterval } from './subscription-calendar';

// The names live in event-types.ts (settings validation and the charge state table need them without the builders).
export { EVENT_TYPES, type EventType };

// Sent to every merchant with a webhook_url; the hold handshake depends on checkout.hold.
export const ALWAYS_ON_EVENTS = ALWAYS_ON_EVENT_TYPES;
export type AlwaysOnEvent = (typeof ALWAYS_ON_EVENTS)[number];

export const OPTIONAL_EVENTS = OPTIONAL_EVENT_TYPES;
export type OptionalEvent = (typeof OPTIONAL_EVENTS)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

// Off-by-default events reach a merchant only once listed in its enabled_events setting.
export function isDelivered(type: EventType, enabledEvents: readonly string[]): boolean {
  return (ALWAYS_ON_EVENTS as readonly string[]).includes(type) || enabledEvents.includes(type);
}

// Line items as stored for webhooks; the contract forbids `name`, `price_cents` and `url` here.
export interface WebhookLineItem {
  product_id: string;
  quantity: number;
  total_amount_cents: number;
  product_name: string;
  product_url: string | null;
  product_price_cents: number;
  sku: string | null;
}

// The subscription terms a checkout was created with (its `subscription_data`).
export type SubscriptionLike = Readonly<{ interval: SubscriptionInterval; interval_count: number }>;

export interface CheckoutLike {
  id: string;
  type: CheckoutType;
  line_items?: readonly WebhookLineItem[] | null;
  subscription?: SubscriptionLike | null;
  /** The subscription the checkout created, once its first charge succeeded (loaded by the caller). */
  live_subscription?: SubscriptionView | null;
}

export interface CustomerLike {
  id: string;
  internal_id: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
}

export interface ChargeLike {
  id: string;
  amount_cents: number;
  transaction_type: 'credit' | 'debit';
  status: ChargeStatus;
  failure_code: string | null;
  failure_message: string | null;
}

export interface ReviewLike {
  id: string;
  status: string;
  amount_cents: number;
}

function webhookCustomer(customer: CustomerLike) {
  return {
    id: customer.id,
    internal_id: customer.internal_id ?? null,
    email: customer.email ?? null,
    first_name: customer.first_name ?? null,
    last_name: customer.last_name ?? null,
  };
}

function webhookLineItems(checkout: CheckoutLike): WebhookLineItem[] {
  return (checkout.line_items ?? []).map((item) => ({
    product_id: item.product_id,
    quantity: item.quantity,
    total_amount_cents: item.total_amount_cents,
    product_name: item.product_name,
    product_url: item.product_url ?? null,
    product_price_cents: item.product_price_cents,
    sku: item.sku ?? null,
  }));
}

/**
 * The contract requires `subscription` in every checkout webhook, null when there is none. A
 * subscription checkout not yet paid reports what it will create (`id` null, `incomplete`).
 */
export function webhookSubscription(checkout: CheckoutLike): SubscriptionView | null {
  if (!checkout.subscription) return null;
  if (checkout.live_subscription) return checkout.live_subscription;
  const amount = (checkout.line_items ?? []).reduce((sum, item) => sum + item.total_amount_cents, 0);
  return incompleteSubscription(checkout.subscription, amount);
}

// `charge.status` is reported as given: for checkout.hold (sent before the move) the caller
// passes the charge with the status it is about to take, `held`.
export function chargeEventData(input: {
  checkout: CheckoutLike;
  customer: CustomerLike;
  charge: ChargeLike;
  fromStatus: ChargeStatus;
}) {
  const { checkout, customer, charge, fromStatus } = input;
  return {
    id: checkout.id,
    type: checkout.type,
    customer: webhookCustomer(customer),
    charge: {
      id: charge.id,
      amount_cents: charge.amount_cents,
      transaction_type: charge.transaction_type,
      status: charge.status,
      from_status: fromStatus,
      failure_code: charge.failure_code ?? null,
      failure_message: charge.failure_message ?? null,
    },
    line_items: webhookLineItems(checkout),
    subscription: webhookSubscription(checkout),
  };
}

/**
 * Where a withdrawal's money would go, in its checkout.hold: the instrument's fingerprint (the
 * same value the charge API shows, stable per instrument), its type and its last four, so the
 * merchant can refuse a destination it does not know before any money moves.
 */
export function holdDestination(method: {
  fingerprint: string;
  payment_type: string;
  details: { card?: { last4: string }; bank_account?: { last4: string }; crypto_wallet?: { address_last4?: string } };
}) {
  const { card, bank_account, crypto_wallet } = method.details;
  return {
    fingerprint: method.fingerprint,
    payment_type: method.payment_type,
    last4: card?.last4 ?? bank_account?.last4 ?? crypto_wallet?.address_last4 ?? null,
  };
}

export function expiredEventData(input: {
  checkout: CheckoutLike;
  customerId: string;
  expiredAt: Date | string;
}) {
  const { checkout, customerId, expiredAt } = input;
  return {
    id: checkout.id,
    expired_at: typeof expiredAt === 'string' ? expiredAt : expiredAt.toISOString(),
    type: checkout.type,
    customer: { id: customerId },
    subscription: webhookSubscription(checkout),
  };
}

interface TerminallyFailedInput {
  checkout: CheckoutLike;
  customerId: string;
  reason: string;
}
interface ReviewInput {
  checkout: CheckoutLike;
  customerId: string;
  review: ReviewLike;
  /** The checkout's deadline after this review event: null while paused (pending) or ended (declined). */
  expiresAt: Date | null;
}

/** Payload of checkout.terminally_failed (given `reason`) or of a checkout.review.* event (given `review`). */
export function checkoutEventData(input: TerminallyFailedInput): {
  id: string;
  type: CheckoutType;
  customer: { id: string };
  reason: string;
  line_items: WebhookLineItem[];
  subscription: SubscriptionView | null;
};
export function checkoutEventData(input: ReviewInput): {
  id: string;
  type: 'withdrawal';
  customer: { id: string };
  review: ReviewLike;
  expires_at: string | null;
  subscription: SubscriptionView | null;
};
export function checkoutEventData(input: TerminallyFailedInput | ReviewInput) {
  const { checkout, customerId } = input;
  if ('review' in input) {
    const { id, status, amount_cents } = input.review;
    return {
      id: checkout.id,
      // Reviews exist only for withdrawals, and the contract fixes data.type accordingly.
      type: 'withdrawal' as const,
      customer: { id: customerId },
      review: { id, status, amount_cents },
      expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
      subscription: webhookSubscription(checkout),
    };
  }
  return {
    id: checkout.id,
    type: checkout.type,
    customer: { id: customerId },
    reason: input.reason,
    line_items: webhookLineItems(checkout),
    subscription: webhookSubscription(checkout),
  };
}

/**
 * Payload of the opt-in subscription.* events: the checkout that created the subscription (its
 * id and type, as in every checkout event), the customer, the subscription, and the renewal
 * charge the event is about (null when none, e.g. a cancellation).
 */
export function subscriptionEventData(input: { checkoutId: string; customerId: string; subscription: SubscriptionView; chargeId: string | null }) {
  return {
    id: input.checkoutId,
    type: 'deposit' as const,
    customer: { id: input.customerId },
    subscription: input.subscription,
    charge_id: input.chargeId,
  };
}

const KEYS_FORBIDDEN_IN_CUSTOMER_EVENTS = ['charge', 'line_items', 'subscription'] as const;
type CustomerEventExtra = Record<string, unknown> & {
  [K in (typeof KEYS_FORBIDDEN_IN_CUSTOMER_EVENTS)[number]]?: never;
};

export function customerEventData<Extra extends CustomerEventExtra>(
  input: { customer: CustomerLike } & Extra,
): { customer: ReturnType<typeof webhookCustomer> } & Omit<Extra, 'customer'> {
  const { customer, ...extra } = input as { customer: CustomerLike } & CustomerEventExtra;
  // The type already forbids these keys; the runtime check catches untyped callers.
  for (const key of KEYS_FORBIDDEN_IN_CUSTOMER_EVENTS) {
    if (key in extra) throw new TypeError(`customer events carry no "${key}" key`);
  }
  return { customer: webhookCustomer(customer), ...(extra as Omit<Extra, 'customer'>) };
}

/**
 * The delivery body, serialised once so every attempt (and its signature) covers the
 * same bytes; key order event_id, data, type is part of the contract.
 */
export function buildEnvelope(eventId: string, type: EventType, data: object): string {
  if (!eventId.startsWith('ev_')) throw new TypeError(`event id must start with ev_: ${eventId}`);
  return JSON.stringify({ event_id: eventId, data, type });
}
