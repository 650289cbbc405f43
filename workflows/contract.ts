/**
 * The Temporal contract: everything the workflows and their clients (API server, worker sweepers,
 * tests, benchmarks) must agree on. Both sides import it from here, so a workflow, update, signal,
 * query, failure type or workflow id can never be spelt differently on one side.
 * This file must stay free of Node built-ins: it is bundled into the workflow sandbox. The task
 * queues are configuration (TEMPORAL_TASK_QUEUE and TEMPORAL_BACKGROUND_TASK_QUEUE, chosen per
 * kind of work in src/temporal/task-queues.ts), the same for both sides.
 */
import { ApplicationFailure, defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ChargeAnswer } from '../src/charges/present';
import type { SubscriptionView } from '../src/domain/subscriptions';

// ---------------------------------------------------------------------------------------------
// Workflows: their inputs, results and the signatures clients start them by.

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

/** Where a checkout's workflow leaves it. */
export type CheckoutState = 'open' | 'in_review' | 'completed' | 'expired' | 'blocked';

/** What a checkout's expiry workflow starts from: started with the checkout, delayed until its deadline. */
export interface CheckoutExpiryWorkflowInput {
  checkoutId: string;
  /** ISO timestamp: a start that came early (a clock ahead of the server's) waits out the rest. */
  expiresAt: string;
}

export interface RefundWorkflowInput {
  chargeId: string;
  /** `processor`: the processor refunded on its own (the sandbox simulator); only recorded. */
  source: 'api' | 'dashboard' | 'sandbox' | 'processor';
  /** A dashboard refund's person (absent for the public API and the processor's own refunds). */
  requester?: RefundRequester;
  /** Epoch ms: a refund whose first task runs later does nothing, since the request that started it was answered 503 (src/temporal/deadlines.ts). */
  acceptBy?: number;
  /** The request's fence (made per send, like acceptBy): claimed with the refund before the processor is called, so a refund whose request answered 503 first is never made. */
  fenceId?: string;
}

export interface DeliveryWorkflowInput {
  eventId: string;
  /** First retry delay; later ones double. From configuration, passed in so replay is deterministic. */
  retryInitialMs: number;
  /**
   * Attempts made before the workflow started: the process that committed the event makes the
   * first one itself and starts this workflow only when it failed. Absent: none (sweeps).
   */
  attemptsMade?: number;
  /** The delivery series (a resend or a replay: 2 and up), whose attempts are logged under it. Absent: 1, the event's own. */
  series?: number;
}

/** What one run of a subscription workflow starts from; the rest it reads through activities. */
export interface SubscriptionWorkflowInput {
  /** Also the workflow id. */
  subscriptionId: string;
  /** The sandbox test clock (ms ahead of real time) carried across continue-as-new; 0 in production. */
  clockOffsetMs: number;
}

/**
 * Every workflow the worker registers, by the name it registers it under, with its signature.
 * `workflows/index.ts` fails to compile unless it exports exactly these functions.
 */
export interface WorkflowSignatures {
  checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ state: CheckoutState }>;
  checkoutExpiryWorkflow(input: CheckoutExpiryWorkflowInput): Promise<{ expired: boolean }>;
  refundWorkflow(input: RefundWorkflowInput): Promise<{ chargeId: string; status: 'refunded' }>;
  deliverEventWorkflow(input: DeliveryWorkflowInput): Promise<'delivered' | 'failed' | 'no_webhook_url'>;
  subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<{ ended: boolean }>;
  workerHealthWorkflow(): Promise<{ database: 'ok' }>;
}
export type WorkflowName = keyof WorkflowSignatures;

/** A typed reference to a workflow: its registered name, and through `N` its input and result types. */
export interface WorkflowRef<N extends WorkflowName> {
  readonly workflowType: N;
}
const workflowRef = <N extends WorkflowName>(workflowType: N): WorkflowRef<N> => ({ workflowType });

/** The workflows clients start (through startWorkflow in src/temporal/workflows.ts). */
export const WORKFLOWS = {
  checkout: workflowRef('checkoutWorkflow'),
  checkoutExpiry: workflowRef('checkoutExpiryWorkflow'),
  refund: workflowRef('refundWorkflow'),
  delivery: workflowRef('deliverEventWorkflow'),
  subscription: workflowRef('subscriptionWorkflow'),
  workerHealth: workflowRef('workerHealthWorkflow'),
} as const;

// ---------------------------------------------------------------------------------------------
// Workflow ids: business ids, so a double submit or a crash cannot start the same work twice.

/** A checkout's workflow: the checkout id. */
export const checkoutWorkflowId = (checkoutId: string): string => checkoutId;
/** A checkout's expiry workflow: `<checkout id>:expiry`. */
export const checkoutExpiryWorkflowId = (checkoutId: string): string => `${checkoutId}:expiry`;
/** A charge's refund workflow: the charge id, so a charge is never refunded twice. */
export const refundWorkflowId = (chargeId: string): string => chargeId;
/** A subscription's renewal workflow: the subscription id. */
export const subscriptionWorkflowId = (subscriptionId: string): string => subscriptionId;
/**
 * A delivery workflow's id: the event id for the event's own delivery, so crashes and
 * re-dispatches never start it twice; `<event id>:<series>` for each resend or replay after it.
 */
export function deliveryWorkflowId(eventId: string, series = 1): string {
  return series === 1 ? eventId : `${eventId}:${series}`;
}

// ---------------------------------------------------------------------------------------------
// Priorities: which work goes first when a task queue has a backlog.

/**
 * Task-queue priority levels (Temporal's `priorityKey`: 1 goes first, 5 last). A workflow's tasks
 * and its activities' tasks carry the priority it was started with. A person waiting on an answer
 * (a customer's attempt and the holds, reviews and settlement of a checkout's payment, a merchant's
 * refund) goes ahead of retries, which go ahead of work nobody waits for (expiries, renewals).
 */
export const PRIORITY_LEVELS = {
  /** A checkout's workflow: a customer's attempt, its hold, its review, its settlement. */
  interactive: 1,
  /** A merchant's request: a refund made through the API or the dashboard. */
  request: 2,
  /** Webhook delivery retries, resends and replays (an event's first attempt is made in-process at once). */
  retry: 4,
  /** Work nobody waits for: the expiry of checkouts nobody tried, subscription renewals. */
  background: 5,
} as const;

/**
 * A start's priority: its level, and the merchant as fairness key, so within one level a merchant
 * with thousands of tasks (a campaign's checkouts expiring) takes turns with the others instead of
 * making them wait behind its backlog (on servers with fairness enabled: docs/deployment.md).
 */
export function priorityOf(level: keyof typeof PRIORITY_LEVELS, merchantId: string): { priorityKey: number; fairnessKey: string } {
  return { priorityKey: PRIORITY_LEVELS[level], fairnessKey: merchantId };
}

// ---------------------------------------------------------------------------------------------
// Search attributes the Temporal Web UI filters by (registered on the dev server at start).

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

// ---------------------------------------------------------------------------------------------
// Memos: what the Temporal Web UI shows of each workflow, so a person reading a list of thousands
// sees whose each one is and what it does without opening its history.

/** A workflow's memo: what it does, and the merchant's and the business records' ids it works on. */
export interface WorkflowMemo {
  purpose: string;
  merchant_id?: string;
  checkout_id?: string;
  customer_id?: string;
  charge_id?: string;
  event_id?: string;
  subscription_id?: string;
}

const memoOf = (purpose: string, ids: Omit<WorkflowMemo, 'purpose'>): WorkflowMemo => {
  const memo: WorkflowMemo = { purpose };
  for (const [key, value] of Object.entries(ids) as Array<[keyof typeof ids, string | undefined]>) if (value !== undefined) memo[key] = value;
  return memo;
};

export const checkoutMemo = (input: Pick<CheckoutWorkflowInput, 'checkoutId' | 'merchantId' | 'customerId' | 'type'>): WorkflowMemo =>
  memoOf(`Checkout (${input.type}): takes the customer's payment attempts, holds, reviews and settlement, and expires the checkout at its deadline`, {
    merchant_id: input.merchantId,
    checkout_id: input.checkoutId,
    customer_id: input.customerId,
  });

export const checkoutExpiryMemo = (input: Pick<CheckoutWorkflowInput, 'checkoutId' | 'merchantId' | 'customerId'>): WorkflowMemo =>
  memoOf("Checkout expiry: expires the checkout at its deadline unless someone tries to pay first; ends when the checkout's own workflow ends it", {
    merchant_id: input.merchantId,
    checkout_id: input.checkoutId,
    customer_id: input.customerId,
  });

export const refundMemo = (ids: { merchantId?: string; chargeId: string; checkoutId?: string }, source: RefundWorkflowInput['source']): WorkflowMemo =>
  memoOf(`Refund (${source}): refunds the charge at its processor and records the outcome`, { merchant_id: ids.merchantId, checkout_id: ids.checkoutId, charge_id: ids.chargeId });

/** `series`: 1 for the event's own delivery, 2 and up for a resend or a replay. */
export const deliveryMemo = (ids: { merchantId?: string; eventId: string; eventType?: string; checkoutId?: string }, series = 1): WorkflowMemo =>
  memoOf(
    `${series === 1 ? 'Webhook delivery' : `Webhook redelivery (series ${series})`}: sends ${ids.eventType ?? 'the event'} to the merchant's webhook_url, retrying with backoff`,
    { merchant_id: ids.merchantId, checkout_id: ids.checkoutId, event_id: ids.eventId },
  );

export const subscriptionMemo = (ids: { merchantId: string; customerId: string; subscriptionId: string }): WorkflowMemo =>
  memoOf('Subscription: renews the subscription each period and takes its cancellations', {
    merchant_id: ids.merchantId,
    customer_id: ids.customerId,
    subscription_id: ids.subscriptionId,
  });

// ---------------------------------------------------------------------------------------------
// The checkout workflow's messages.

/** One payment attempt, already tokenized by the wallet API (no card number reaches Temporal). */
export interface AttemptInput {
  /** Made by the wallet API per request: the idempotency reference of the charge it creates. */
  attemptId: string;
  paymentMethodId: string;
  amountCents: number;
  /** Epoch ms: the request that sent it is answered 503 after this, so the workflow refuses it if it arrives later (src/temporal/deadlines.ts). */
  acceptBy?: number;
}

/** `charge`: the charge as the wallet answers it. */
export type AttemptResult = { kind: 'charge'; chargeId: string; charge?: ChargeAnswer } | { kind: 'review'; reviewId: string };

export type ReviewDecision = 'approved' | 'declined';

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

/** The wallet's payment attempt; answers once the charge has its first outcome (or the review exists). */
export const submitAttemptUpdate = defineUpdate<AttemptResult, [AttemptInput]>('submitAttempt');
/**
 * Whose decision it is in the merchant's audit log: a person of the merchant, one of the operator's
 * people (with their email, kept with the entry) or the operator's admin token. The audit row is
 * written in the transaction that records the decision, so one never commits without the other.
 */
export interface DecisionAudit {
  actor: AuditActor;
}

/** Who made a change, as the merchant's audit log names them, with the client address they acted from (plain data, carried in workflow inputs). */
export type AuditActor = ({ kind: 'user'; id: string; email?: string } | { kind: 'operator'; id: string; email: string } | { kind: 'admin' }) & { address?: string };

/**
 * Who asked for a dashboard refund: the refund row's `requested_by` (the person's email; null for
 * the admin token) and the audit entry, written in the transaction that records the refund.
 */
export interface RefundRequester {
  email: string | null;
  actor: AuditActor;
}

/**
 * The reviewer's decision from the admin API; the workflow waits for it with no timeout. An
 * update (a signal with a result) so the admin call learns whether it decided the review or
 * found it already decided, and a crash between the call and the workflow loses nothing. The second
 * argument names who decided (a reviewer, or `admin API`); it is written with the decision. The
 * third, given for a merchant's person, has the decision's audit row written with it too. The
 * fourth is the request's acceptBy, the fifth its fence (made per send), claimed in the decision's
 * transaction: a decision whose request answered 503 first is refused, and the review stays pending.
 */
export const decideReviewUpdate = defineUpdate<ReviewSnapshot, [ReviewDecision, string?, DecisionAudit?, number?, string?]>('decideReview');
/**
 * A charge of the checkout moved outside the workflow (the sandbox simulator, after its commit):
 * a workflow waiting out that charge's settlement time, or its hold time, wakes and reads where it
 * is. The second argument is the status it moved from.
 */
export const chargeMovedSignal = defineSignal<[string, string?]>('chargeMoved');
export const checkoutStatusQuery = defineQuery<{ state: string; attemptInFlight: boolean }>('checkoutStatus');
/**
 * To a checkout's expiry workflow, sent with its start (signal-with-start, the only signal that cuts
 * a start delay short) once the checkout's own workflow has ended the checkout: the expiry
 * workflow ends at once instead of waiting for the deadline. The argument is the checkout's state.
 */
export const checkoutEndedSignal = defineSignal<[CheckoutState]>('checkoutEnded');

// ---------------------------------------------------------------------------------------------
// The subscription workflow's messages.

/** The test clock moved forward (absolute offset, so a repeated or reordered delivery is harmless). */
export const advanceClockUpdate = defineUpdate<{ now: string }, [{ clockOffsetMs: number }]>('advanceClock');
/**
 * A merchant's cancellation, now or at period end. An update rather than a database write, so the
 * workflow serialises it with a renewal in flight: a cancellation answered as done is never
 * followed by a charge.
 */
/** `audit`: the operator's cancellation, whose audit entry commits with the cancellation. */
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionView, [{ atPeriodEnd: boolean; audit?: DecisionAudit }]>('cancelSubscription');
/**
 * A renewal charge was moved outside the workflow (the sandbox simulator), after the commit: a
 * workflow waiting out that charge's settlement time stops waiting and reads it. Lost, the wait
 * simply runs its full time.
 */
export const renewalMovedSignal = defineSignal<[string]>('renewalMoved');

// ---------------------------------------------------------------------------------------------
// Failures: business refusals are non-retryable failures with one of these types (never a class name).

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
  /** The work reached its workflow after its acceptBy: the request that sent it was answered 503, and only a new request may do it. */
  requestAnswered: 'REQUEST_ANSWERED',
} as const;

export const SUBSCRIPTION_FAILURES = {
  cancelled: 'SUBSCRIPTION_CANCELLED',
  invalidClock: 'INVALID_CLOCK',
} as const;

/**
 * The business failure inside a Temporal error. A refusal raised in an activity reaches the
 * workflow wrapped in an activity failure, and the client wrapped once more (update or workflow
 * failure), so the chain of causes is walked to the first ApplicationFailure with a type.
 */
export function applicationFailureOf(error: unknown): ApplicationFailure | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 10; depth += 1) {
    if (cause instanceof ApplicationFailure && cause.type) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

export function failureType(error: unknown): string | undefined {
  return applicationFailureOf(error)?.type ?? undefined;
}
