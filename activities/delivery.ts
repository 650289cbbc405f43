import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { findEvent, insertAttempt, setDeliveryStatus, type EventRow } from '../src/storage/events';
import type { MerchantRow } from '../src/storage/merchants';
import { sendSignedWebhook } from '../src/webhooks/send';

export function createDeliveryActivities(deps: ActivityDeps) {
  const { db, sealer } = deps;
  return {
    /**
     * One delivery attempt of a recorded event: the stored bytes, signed afresh. A non-2xx
     * answer or a timeout throws, and the workflow's retry policy makes the next attempt.
     */
    async deliverEvent(input: { eventId: string }): Promise<'delivered' | 'no_webhook_url'> {
      const event = await findEvent(db, input.eventId);
      if (!event) throw ApplicationFailure.nonRetryable(`event ${input.eventId} does not exist`);
      const merchant = (await db<MerchantRow>('merchants').where({ id: event.merchant_id }).first())!;
      const url = merchant.settings.webhook_url;
      if (!url) return 'no_webhook_url';
      const result = await sendSignedWebhook({ url, body: event.body, secret: sealer.open(merchant.webhook_signing_secret_sealed) });
      await insertAttempt(db, {
        event_id: event.id,
        attempt: Context.current().info.attempt,
        url,
        started_at: result.startedAt,
        duration_ms: result.durationMs,
        http_status: result.httpStatus,
        error: result.error,
      });
      if (!result.ok) throw ApplicationFailure.retryable(`delivery failed: ${result.error}`, 'WEBHOOK_NOT_ACCEPTED');
      return 'delivered';
    },

    async finishDelivery(input: { eventId: string; status: EventRow['delivery_status'] }): Promise<void> {
      await setDeliveryStatus(db, input.eventId, input.status);
    },
  };
}
