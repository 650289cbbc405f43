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
  type SubscriptionWorkflowInput,
} from './contract';

const db = proxyActivities<Activities>(DATABASE);
const processor = proxyActivities<Activities>(PROCESSOR);

/** How long to wait before looking again when the database's clock says a renewal is not due yet. */
const NOT_DUE_BACKOFF_MS = 1_000;

/**
 * One workflow per subscription (workflow id = subscription id). Each run waits until the
 * subscription's next charge is due on its clock (real time plus the sandbox test clock), makes
 * one renewal step (a charge, or the end at period end), and continues as new, so its history
 * stays bounded however many periods it lives. Cancellations arrive as updates and never run
 * while a renewal is in flight.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<{ ended: boolean }> {
  const { subscriptionId } = input;
  let offsetMs = input.clockOffsetMs;
  let busy = false; // a renewal or a cancellation is running
  let cancelsWaiting = 0;
  let ended = false;
  let planIsStale = false;
  let clockMoves = 0; // advances of the test clock: each restarts the wait for the due time
  const clock = () => Date.now() + offsetMs;
  const movedCharges = new Set<string>(); // renewals moved outside the workflow (renewalMovedSignal)

  setHandler(renewalMovedSignal, (chargeId) => void movedCharges.add(chargeId));

  setHandler(
    advanceClockUpdate,
    ({ clockOffsetMs }) => {
      offsetMs = Math.max(offsetMs, clockOffsetMs);
      clockMoves++;
      return { now: new Date(clock()).toISOString() };
    },
    {
      validator: ({ clockOffsetMs }) => {
        // The offset may be negative (a customer clock set in the past); max() above keeps it monotone.
        if (!Number.isSafeInteger(clockOffsetMs)) throw ApplicationFailure.nonRetryable('not a clock offset', SUBSCRIPTION_FAILURES.invalidClock);
      },
    },
  );

  setHandler(
    cancelSubscriptionUpdate,
    async ({ atPeriodEnd }) => {
      cancelsWaiting++; // before any await, so the main loop starts no renewal meanwhile
      try {
        await condition(() => !busy);
        busy = true;
        const subscription = await db.cancelSubscription({ subscriptionId, atPeriodEnd });
        if (subscription.status === 'cancelled') ended = true;
        planIsStale = true;
        return subscription;
      } finally {
        busy = false;
        cancelsWaiting--;
      }
    },
    {
      validator: (_request: { atPeriodEnd: boolean }) => {
        if (ended) throw ApplicationFailure.nonRetryable('the subscription is cancelled', SUBSCRIPTION_FAILURES.cancelled);
      },
    },
  );

  let plan = await loadPlan();
  for (;;) {
    if (ended || plan.status === 'cancelled' || plan.nextChargeAt === null) {
      ended = true;
      break;
    }
    const due = Date.parse(plan.nextChargeAt);
    const ready = () => ended || planIsStale || (cancelsWaiting === 0 && !busy && clock() >= due);
    while (!ready()) {
      // A real timer for the real time that remains on the clock; an update (a cancellation) wakes
      // it earlier, and an advance of the test clock wakes it to start a timer for what remains then.
      const realWait = due - clock();
      const movesBefore = clockMoves;
      const wake = () => ready() || clockMoves !== movesBefore;
      if (realWait > 0) await condition(wake, realWait);
      else await condition(wake);
    }
    if (ended) break;
    if (planIsStale) {
      planIsStale = false;
      plan = await loadPlan();
      continue;
    }
    busy = true;
    try {
      const step = await renew(plan, movedCharges);
      if (step === 'ended') ended = true;
      if (step === 'not_due') await sleep(NOT_DUE_BACKOFF_MS);
    } finally {
      busy = false;
    }
    break;
  }
  await condition(allHandlersFinished);
  if (ended) return { ended: true };
  return continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, clockOffsetMs: offsetMs });

  async function loadPlan(): Promise<SubscriptionPlan> {
    const loaded = await db.loadSubscriptionPlan({ subscriptionId });
    offsetMs = Math.max(offsetMs, loaded.clockOffsetMs); // an advance recorded while no run was listening
    return loaded;
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

