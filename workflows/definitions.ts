/**
 * Names both sides of Temporal share: the workflow code and the client code (API server, tests)
 * import them from here, so a signal, update or search attribute can never be misspelt on one side.
 * This file must stay free of Node built-ins: it is bundled into the workflow sandbox.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import type { ChargeAnswer } from '../src/charges/present';

export const DEFAULT_TASK_QUEUE = 'payments';

/** Search attributes the Temporal Web UI filters checkouts by (registered on the dev server at start). */
export const MerchantIdAttribute = defineSearchAttributeKey('MerchantId', 'KEYWORD');
export const CustomerIdAttribute = defineSearchAttributeKey('CustomerId', 'KEYWORD');
export const CheckoutTypeAttribute = defineSearchAttributeKey('CheckoutType', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [MerchantIdAttribute, CustomerIdAttribute, CheckoutTypeAttribute];

/** A checkout workflow's search attribute values: set at its start, and again by each run it continues as new. */
export function checkoutSearchAttributes(input: Pick<CheckoutWorkflowInput, 'merchantId' | 'customerId' | 'type'>) {
  return [
    { key: MerchantIdAttribute, value: input.merchantId },
    { key: CustomerIdAttribute, value: input.customerId },
    { key: CheckoutTypeAttribute, value: input.type },
  ];
}

/** What a checkout workflow starts from; the rest it reads through activities. */
export interface CheckoutWorkflowInput {
  checkoutId: string;
  merchantId: string;
  customerId: string;
  type: 'deposit' | 'withdrawal';
  /** ISO timestamp; the expiry timer is computed from it, so a late start still expires on time. */
  expiresAt: string;
  /** The merchant's attempt limit at creation; absent: no limit. */
  maxAttempts?: number;
  /** Attempts the checkout's earlier runs accepted (a run whose history grew long continues as new). */
  attemptsBefore?: number;
}

/** One payment attempt, already tokenized by the wallet API (no card number reaches Temporal). */
export interface AttemptInput {
  /** Made by the wallet API per request: the idempotency reference of the charge it creates. */
  attemptId: string;
  paymentMethodId: string;
  amountCents: number;
}

/** `charge`: the charge as the wallet answers it, when the workflow has it (absent in older runs: read it back). */
export type AttemptResult = { kind: 'charge'; chargeId: string; charge?: ChargeAnswer } | { kind: 'review'; reviewId: string };

export type ReviewDecision = 'approved' | 'declined';

/** Business refusals carry one of these failure types (never a class name). */
export const FAILURE_TYPES = {
  checkoutNotOpen: 'CHECKOUT_NOT_OPEN',
  attemptInFlight: 'ATTEMPT_IN_FLIGHT',
  checkoutBlocked: 'CHECKOUT_BLOCKED',
  chargeNotRefundable: 'CHARGE_NOT_REFUNDABLE',
  /** The charge is not succeeded (not yet, or no longer): the contract's "Unable to refund charge." */
  chargeNotSucceeded: 'CHARGE_NOT_SUCCEEDED',
  refundUnsupported: 'REFUND_UNSUPPORTED',
  refundDeclined: 'REFUND_DECLINED',
  reviewAlreadyDecided: 'REVIEW_ALREADY_DECIDED',
  /** The attempt needs a review, and the checkout's one review was already used. */
  reviewSpent: 'REVIEW_SPENT',
  /** The checkout took as many attempts as the merchant allows. */
  attemptLimit: 'ATTEMPT_LIMIT',
  /** The checkout expired (or was completed or blocked) while the attempt waited its turn. */
  checkoutClosed: 'CHECKOUT_CLOSED',
  /** An approval the re-checks at decision time refuse (restricted customer, KYC, method, expired card); the review stays pending. */
  approvalRefused: 'APPROVAL_REFUSED',
  /** A refund holds the charge: no other move may take it until the refund ends. */
  refundInProgress: 'REFUND_IN_PROGRESS',
  /** The admission policy refuses the attempt's method now (no longer offered, destination not allowed, card expired). */
  admissionRefused: 'ADMISSION_REFUSED',
} as const;

// Messages of the checkout workflow. Definitions only: safe to import from client code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** The wallet's payment attempt; answers once the charge has its first outcome (or the review exists). */
export const submitAttemptUpdate = defineUpdate<AttemptResult, [AttemptInput]>('submitAttempt');
/**
 * The reviewer's decision from the admin API; the workflow waits for it with no timeout. An
 * update (a signal with a result) so the admin call learns whether it decided the review or
 * found it already decided, and a crash between the call and the workflow loses nothing. The second
 * argument names who decided (a reviewer, or `admin API`); it is written with the decision.
 */
export const decideReviewUpdate = defineUpdate<ReviewSnapshot, [ReviewDecision, string?]>('decideReview');
/**
 * A charge of the checkout moved outside the workflow (the sandbox simulator, after its commit):
 * a workflow waiting out that charge's settlement time, or its hold time, wakes and reads where it
 * is. The second argument is the status it moved from (absent in signals sent before it existed).
 */
export const chargeMovedSignal = defineSignal<[string, string?]>('chargeMoved');

/** The review as the admin API answers it. */
export interface ReviewSnapshot {
  id: string;
  checkout_id: string;
  merchant_id: string;
  customer_id: string;
  amount_cents: number;
  status: 'pending' | 'approved' | 'declined';
  created_at: string;
  decided_at: string | null;
}
export const checkoutStatusQuery = defineQuery<{ state: string; attemptInFlight: boolean }>('checkoutStatus');

export interface RefundWorkflowInput {
  chargeId: string;
  /** `processor`: the processor refunded on its own (the sandbox simulator); only recorded. */
  source: 'api' | 'dashboard' | 'sandbox' | 'processor';
}

export interface DeliveryWorkflowInput {
  eventId: string;
  /** First retry delay; later ones double. From configuration, passed in so replay is deterministic. */
  retryInitialMs: number;
  /**
   * Attempts made before the workflow started: the process that committed the event makes the
   * first one itself and starts this workflow only when it failed. Absent: none (older runs, sweeps).
   */
  attemptsMade?: number;
  /** The delivery series (a resend or a replay: 2 and up), whose attempts are logged under it. Absent: 1, the event's own. */
  series?: number;
}

/**
 * A delivery workflow's id: the event id for the event's own delivery, so crashes and
 * re-dispatches never start it twice; `<event id>:<series>` for each resend or replay after it.
 */
export function deliveryWorkflowId(eventId: string, series = 1): string {
  return series === 1 ? eventId : `${eventId}:${series}`;
}
