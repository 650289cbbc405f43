/**
 * The contract's event catalog as names only (the payload builders live in event-catalog.ts).
 * Kept in its own file so settings validation can import it without pulling in payload code.
 */
export const ALWAYS_ON_EVENT_TYPES = ['checkout.succeeded', 'checkout.hold', 'checkout.release_hold', 'checkout.returned'] as const;

/** A subscription's own lifecycle: created, renewed, a renewal failed (dunning), updated, cancelled. */
export const SUBSCRIPTION_EVENT_TYPES = [
  'subscription.created',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.updated',
  'subscription.cancelled',
] as const;

export const OPTIONAL_EVENT_TYPES = [
  'checkout.pending',
  'checkout.failed',
  'checkout.voided',
  'checkout.refunded',
  'checkout.cancelled',
  'checkout.expired',
  'checkout.terminally_failed',
  'checkout.review.created',
  'checkout.review.approved',
  'checkout.review.declined',
  'customer.kyc.created',
  'customer.restricted',
  'customer.unrestricted',
  // Our extension (the contract's checkout.* events cannot say these); off by default like the above.
  ...SUBSCRIPTION_EVENT_TYPES,
] as const;

export const EVENT_TYPES = [...ALWAYS_ON_EVENT_TYPES, ...OPTIONAL_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];
