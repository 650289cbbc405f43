import { CancellationScope, sleep, type ApplicationFailure } from '@temporalio/workflow';
import type { Context as TraceContext } from '@opentelemetry/api';
import type { ChargeSnapshot } from '../activities/charges';
import type { HoldAnswer } from '../activities/holds';
import type { AttemptInput, AttemptResult, CheckoutState, CheckoutWorkflowInput, DecisionAudit, ReviewDecision, ReviewSnapshot } from './contract';

/** One attempt, from its update to its end: what it asked, its review, its hold's answer and its charge. */
export interface Attempt {
  readonly input: AttemptInput;
  /** Its update's trace context, so the activities run for it join the wallet request's trace. Headers only, no commands. */
  readonly trace: TraceContext;
  /** The wallet's answer, once the first outcome is known (the charge's, or the review's). */
  answer?: AttemptResult;
  /** Why the attempt could not run; its update throws it. */
  refusal?: ApplicationFailure;
  review?: Review;
  /** A withdrawal's hold handshake: its answer, or null when the hold activity itself failed. */
  hold?: HoldAnswer | null;
  /** The attempt's charge as last seen. */
  charge?: ChargeSnapshot;
}

/** An attempt's review, from its creation to the reviewer's decision as recorded. */
export interface Review {
  readonly id: string;
  /** The decision a reviewer's update brought, while it is being recorded, who made it and its request's fence. */
  decision?: { decision: ReviewDecision; decidedBy?: string; audit?: DecisionAudit; fenceId?: string };
  /** The decision as recorded. */
  decided?: ReviewSnapshot;
  /** The refusal of the decision being recorded: its update throws it, and the review takes another decision. */
  refused?: ApplicationFailure;
}

/** The running expiry timer and the deadline it is for; replaced when a review moves the deadline. */
interface ExpiryTimer {
  deadline: number;
  fired: boolean;
  scope: CancellationScope;
}

/** The checkout as this run of its workflow holds it. */
export interface Checkout {
  readonly input: CheckoutWorkflowInput;
  state: CheckoutState;
  /** Set while the checkout is being expired: no attempt is accepted from then on. */
  closing: boolean;
  /** The deadline (epoch ms); a review's approval moves it. */
  expiresAt: number;
  expiry?: ExpiryTimer;
  /** Attempts accepted by this run and the runs it continues (the attempt limit counts them all). */
  attemptsAccepted: number;
  /** Accepted attempts waiting for their turn (one at most: a second is refused while one is in flight). */
  readonly queue: Attempt[];
  /** The attempt running. */
  current?: Attempt;
  /** Charges moved outside the workflow (chargeMovedSignal): from held, and from any other status. */
  readonly moved: { readonly fromHeld: Set<string>; readonly other: Set<string> };
}

export function newCheckout(input: CheckoutWorkflowInput): Checkout {
  return {
    input,
    state: 'open',
    closing: false,
    expiresAt: Date.parse(input.expiresAt),
    attemptsAccepted: input.attemptsBefore ?? 0,
    queue: [],
    moved: { fromHeld: new Set(), other: new Set() },
  };
}

/** An attempt was accepted and has not ended: it is queued or running. */
export const attemptInFlight = (checkout: Checkout): boolean => checkout.queue.length > 0 || checkout.current !== undefined;

/** The review waiting for its decision, if any: the running attempt's, while the checkout is in review. */
export function pendingReview(checkout: Checkout): Review | undefined {
  const review = checkout.state === 'in_review' ? checkout.current?.review : undefined;
  return review && review.decision === undefined ? review : undefined;
}

/**
 * One expiry timer per deadline, kept while attempts come and go (not one started and cancelled
 * around each attempt); a new one when a review's approval moved the deadline.
 */
export function expiryTimer(checkout: Checkout): { readonly fired: boolean } {
  const deadline = checkout.expiresAt;
  if (checkout.expiry?.deadline === deadline) return checkout.expiry;
  checkout.expiry?.scope.cancel();
  const timer: ExpiryTimer = { deadline, fired: false, scope: new CancellationScope() };
  const remaining = deadline - Date.now();
  if (remaining > 0) {
    timer.scope.run(() => sleep(remaining)).then(
      () => void (timer.fired = true),
      () => undefined, // cancelled: the deadline moved
    );
  } else timer.fired = true;
  checkout.expiry = timer;
  return timer;
}
