/**
 * The Temporal contract of subscription workflows, shared by the workflow and its clients (the
 * admin API, the worker's sweeper, tests). Definitions only: safe to import from client code and
 * free of Node built-ins, since it is bundled into the workflow sandbox.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SubscriptionView } from '../src/domain/subscriptions';

/** What one run of a subscription workflow starts from; the rest it reads through activities. */
export interface SubscriptionWorkflowInput {
  /** Also the workflow id. */
  subscriptionId: string;
  /** The sandbox test clock (ms ahead of real time) carried across continue-as-new; 0 in production. */
  clockOffsetMs: number;
}

/**
 * The subscription workflow's signature, for typed starts: client code names it here rather than
 * importing the workflow module, which imports the activities that start subscriptions.
 */
export type SubscriptionWorkflow = (input: SubscriptionWorkflowInput) => Promise<{ ended: boolean }>;

/** The test clock moved forward (absolute offset, so a repeated or reordered delivery is harmless). */
export const advanceClockUpdate = defineUpdate<{ now: string }, [{ clockOffsetMs: number }]>('advanceClock');

/**
 * A merchant's cancellation, now or at period end. An update rather than a database write, so the
 * workflow serialises it with a renewal in flight: a cancellation answered as done is never
 * followed by a charge.
 */
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionView, [{ atPeriodEnd: boolean }]>('cancelSubscription');

/**
 * A renewal charge was moved outside the workflow (the sandbox simulator), after the commit: a
 * workflow waiting out that charge's settlement time stops waiting and reads it. Lost, the wait
 * simply runs its full time, as before.
 */
export const renewalMovedSignal = defineSignal<[string]>('renewalMoved');

export const SUBSCRIPTION_FAILURES = {
  cancelled: 'SUBSCRIPTION_CANCELLED',
  invalidClock: 'INVALID_CLOCK',
} as const;
