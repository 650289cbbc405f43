import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { findEventUnscoped, hasAcceptedAttemptSince, setDeliveryStatus, type EventRow } from '../src/storage/events';
import { findMerchant } from '../src/storage/merchants';
import { attemptDelivery } from '../src/events/deliver';

export function createDeliveryActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /**
     * One delivery attempt of a recorded event, in its delivery series (1 unless a resend or a
     * replay): the stored bytes, signed afresh. A non-2xx answer or a timeout throws, and the
     * workflow's retry policy makes the next attempt. The attempt is numbered on after every
     * attempt the event had (src/storage/events.ts); `attemptsMade` only sizes the retry budget.
     */
    async deliverEvent(input: { eventId: string; recordOutcome?: boolean; attemptsMade?: number; series?: number }): Promise<'delivered' | 'no_webhook_url'> {
      const event = await findEventUnscoped(db, input.eventId);
      if (!event) throw ApplicationFailure.nonRetryable(`event ${input.eventId} does not exist`);
      const { attempt, scheduledTimestampMs } = Context.current().info;
      const series = input.series ?? 1;
      // A run of this activity before this one was accepted, but Temporal never learnt it (its
      // worker died after the answer, or it outlived its time limit): delivered, not sent again.
      const acceptedBefore = attempt > 1 && (await hasAcceptedAttemptSince(db, event.id, series, new Date(scheduledTimestampMs)));
      const merchant = (await findMerchant(db, event.merchant_id))!;
      const result = acceptedBefore ? null : await attemptDelivery(deps, event, merchant, series, input.recordOutcome ? { markDelivered: { dispatched: false } } : {});
      if (result && !result.ok) throw ApplicationFailure.retryable(`delivery failed: ${result.error}`, 'WEBHOOK_NOT_ACCEPTED');
      const outcome = acceptedBefore || result ? 'delivered' : 'no_webhook_url';
      // An accepted attempt wrote `delivered` with itself; only the other outcomes are written here.
      if (input.recordOutcome && !result?.ok) await setDeliveryStatus(db, event.id, outcome);
      return outcome;
    },

    async finishDelivery(input: { eventId: string; status: EventRow['delivery_status'] }): Promise<void> {
      await setDeliveryStatus(db, input.eventId, input.status);
    },
  };
}
