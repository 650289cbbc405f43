import { ApplicationFailure, allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SubscriptionPlan } from '../activities/subscriptions';
import { DATABASE, PROCESSOR } from './retry-policies';
import { waitUnlessMoved } from './waits';
import {
  SUBSCRIPTION_FAILURES,
  advanceClockUpdate,
  cancelSubscriptionUpdate,
  renewalMovedSignal,
  type DecisionAudit,
  type SubscriptionWorkflowInput,
} from './contract';

const db = proxyActivities<Activities>(DATABASE);
const processor = proxyActivities<Activities>(PROCESSOR);

/** How long to wait before looking again when the database's clock says a renewal is not due yet. */
const NOT_DUE_BACKOFF_MS = 1_000;

/** A subscription as one run of its workflow holds it. */
interface Subscription {
  readonly id: string;
  /** The sandbox test clock: ms ahead of real time (0 in production). */
  offsetMs: number;
  /** A renewal or a cancellation is running. */
  busy: boolean;
  cancelsWaiting: number;
  ended: boolean;
  /** A cancellation changed the subscription: the plan is read again before anything is due. */
  planIsStale: boolean;
  /** Advances of the test clock: each restarts the wait for the due time. */
  clockMoves: number;
  /** Renewals moved outside the workflow (renewalMovedSignal). */
  readonly moved: Set<string>;
}

const clock = (sub: Subscription) => Date.now() + sub.offsetMs;

/**
 * One workflow per subscription (workflow id = subscription id). Each run waits until the
 * subscription's next charge is due on its clock (real time plus the sandbox test clock), makes
 * one renewal step (a charge, or the end at period end), and continues as new, so its history
 * stays bounded however many periods it lives. Cancellations arrive as updates and never run
 * while a renewal is in flight.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<{ ended: boolean }> {
  const sub: Subscription = { id: input.subscriptionId, offsetMs: input.clockOffsetMs, busy: false, cancelsWaiting: 0, ended: false, planIsStale: false, clockMoves: 0, moved: new Set() };
  handleMessages(sub);
  await nextStep(sub);
  await condition(allHandlersFinished);
  if (sub.ended) return { ended: true };
  return continueAsNew<typeof subscriptionWorkflow>({ subscriptionId: sub.id, clockOffsetMs: sub.offsetMs });
}

function handleMessages(sub: Subscription): void {
  setHandler(renewalMovedSignal, (chargeId) => void sub.moved.add(chargeId));
  setHandler(
    advanceClockUpdate,
    ({ clockOffsetMs }) => {
      sub.offsetMs = Math.max(sub.offsetMs, clockOffsetMs);
      sub.clockMoves++;
      return { now: new Date(clock(sub)).toISOString() };
    },
    {
      validator: ({ clockOffsetMs }) => {
        // The offset may be negative (a customer clock set in the past); max() above keeps it monotone.
        if (!Number.isSafeInteger(clockOffsetMs)) throw ApplicationFailure.nonRetryable('not a clock offset', SUBSCRIPTION_FAILURES.invalidClock);
      },
    },
  );
  setHandler(cancelSubscriptionUpdate, ({ atPeriodEnd, audit }) => cancel(sub, atPeriodEnd, audit), {
    validator: (_request: { atPeriodEnd: boolean }) => {
      if (sub.ended) throw ApplicationFailure.nonRetryable('the subscription is cancelled', SUBSCRIPTION_FAILURES.cancelled);
    },
  });
}

/** A merchant's cancellation: waits for a renewal in flight, and starts none meanwhile. */
async function cancel(sub: Subscription, atPeriodEnd: boolean, audit?: DecisionAudit) {
  sub.cancelsWaiting++; // before any await, so the main loop starts no renewal meanwhile
  try {
    await condition(() => !sub.busy);
    sub.busy = true;
    // Optional fields only when given: an activity input like the ones already in histories.
    const subscription = await db.cancelSubscription({ subscriptionId: sub.id, atPeriodEnd, ...(audit ? { audit } : {}) });
    if (subscription.status === 'cancelled') sub.ended = true;
    sub.planIsStale = true;
    return subscription;
  } finally {
    sub.busy = false;
    sub.cancelsWaiting--;
  }
}

/** This run's step: waits until the next charge is due (reading the plan again after a cancellation), then renews. */
async function nextStep(sub: Subscription): Promise<void> {
  let plan = await loadPlan(sub);
  for (;;) {
    if (sub.ended || plan.status === 'cancelled' || plan.nextChargeAt === null) {
      sub.ended = true;
      return;
    }
    await untilDue(sub, Date.parse(plan.nextChargeAt));
    if (sub.ended) return;
    if (!sub.planIsStale) return renewNow(sub, plan);
    sub.planIsStale = false;
    plan = await loadPlan(sub);
  }
}

async function loadPlan(sub: Subscription): Promise<SubscriptionPlan> {
  const loaded = await db.loadSubscriptionPlan({ subscriptionId: sub.id });
  sub.offsetMs = Math.max(sub.offsetMs, loaded.clockOffsetMs); // an advance recorded while no run was listening
  return loaded;
}

/** Waits until `due` on the subscription's clock, or until it ended or its plan went stale. */
async function untilDue(sub: Subscription, due: number): Promise<void> {
  const ready = () => sub.ended || sub.planIsStale || (sub.cancelsWaiting === 0 && !sub.busy && clock(sub) >= due);
  while (!ready()) {
    // A real timer for the real time that remains on the clock; an update (a cancellation) wakes
    // it earlier, and an advance of the test clock wakes it to start a timer for what remains then.
    const realWait = due - clock(sub);
    const movesBefore = sub.clockMoves;
    const wake = () => ready() || sub.clockMoves !== movesBefore;
    if (realWait > 0) await condition(wake, realWait);
    else await condition(wake);
  }
}

async function renewNow(sub: Subscription, plan: SubscriptionPlan): Promise<void> {
  sub.busy = true;
  try {
    const step = await renew(plan, sub.moved);
    if (step === 'ended') sub.ended = true;
    if (step === 'not_due') await sleep(NOT_DUE_BACKOFF_MS);
  } finally {
    sub.busy = false;
  }
}

/**
 * One renewal step: the charge for the period now due (through the same charge activities, state
 * table and events as any charge; its outcome moves the subscription in the same commit), or the
 * end of a subscription cancelled at period end.
 */
async function renew(plan: SubscriptionPlan, movedCharges: ReadonlySet<string>): Promise<'charged' | 'ended' | 'not_due'> {
  const step = await db.beginRenewal({ subscriptionId: plan.subscriptionId });
  if (step.kind !== 'charge') return step.kind;
  const charge = await processor.chargeDeposit({ chargeId: step.chargeId });
  if (charge.status === 'pending') {
    // Less when the renewal was moved meanwhile: settleCharge then finds it settled, failed or
    // cancelled, and a cancellation waiting for the renewal runs at once instead of after up to an
    // hour of sandbox settlement time.
    await waitUnlessMoved(movedCharges, step.chargeId, plan.settlementMs);
    await processor.settleCharge({ chargeId: step.chargeId });
  }
  return 'charged';
}

