import type { Sealer } from '../crypto';
import type { Db } from '../storage/db';
import { insertAttempt, type EventRow } from '../storage/events';
import type { MerchantRow } from '../storage/merchants';
import { sendSignedWebhook, type SendResult } from '../webhooks/send';

/**
 * One attempt to deliver a recorded event to the merchant's webhook_url: the stored bytes,
 * signed afresh with the merchant's secret, and the attempt written to the event log. Used by
 * the retried delivery activity and by the hold handshake alike. Null when there is no URL.
 */
export async function attemptDelivery(
  db: Db,
  sealer: Sealer,
  event: Pick<EventRow, 'id' | 'body'>,
  merchant: Pick<MerchantRow, 'settings' | 'webhook_signing_secret_sealed'>,
  attempt: number,
): Promise<SendResult | null> {
  const url = merchant.settings.webhook_url;
  if (!url) return null;
  const result = await sendSignedWebhook({ url, body: event.body, secret: sealer.open(merchant.webhook_signing_secret_sealed) });
  await insertAttempt(db, {
    event_id: event.id,
    attempt,
    url,
    started_at: result.startedAt,
    duration_ms: result.durationMs,
    http_status: result.httpStatus,
    error: result.error,
    response_excerpt: result.responseExcerpt,
  });
  return result;
}
