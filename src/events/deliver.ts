import type { Config } from '../config';
import type { Sealer } from '../crypto';
import type { Db } from '../storage/db';
import { startAttempt, writeAttemptOutcome, type EventRow } from '../storage/events';
import type { MerchantRow } from '../storage/merchants';
import { sendSignedWebhook, type SendResult } from '../webhooks/send';
import { targetPolicy, type HostResolver } from '../webhooks/target';
import { recordWebhookAttempt } from '../observability/metrics';
import { withWebhookSpan } from '../observability/tracing';

export interface DeliveryDeps {
  db: Db;
  sealer: Sealer;
  config: Pick<Config, 'nodeEnv' | 'allowPrivateWebhookUrls'>;
  /** Tests inject a resolver they control (DNS rebinding); the system resolver otherwise. */
  resolveHost?: HostResolver;
}

type SigningMerchant = Pick<MerchantRow, 'webhook_signing_secret_sealed' | 'previous_webhook_signing_secret_sealed' | 'previous_webhook_signing_secret_expires_at'>;

/** The secrets a delivery is signed with now: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(sealer: Sealer, merchant: SigningMerchant, now: Date = new Date()): string[] {
  const secrets = [sealer.open(merchant.webhook_signing_secret_sealed)];
  const previous = merchant.previous_webhook_signing_secret_sealed;
  const until = merchant.previous_webhook_signing_secret_expires_at;
  if (previous && until && until.getTime() > now.getTime()) secrets.push(sealer.open(previous));
  return secrets;
}

/**
 * One attempt to deliver a recorded event to the merchant's webhook_url: the stored bytes,
 * signed afresh with the merchant's secret(s), sent to an address checked now, and the attempt
 * written to the event log under the event's next attempt number, in delivery series `series`
 * (a refused target is a failed attempt with its reason). Used by the retried delivery activity
 * and by the hold handshake alike. Null when there is no URL.
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  event: Pick<EventRow, 'id' | 'type' | 'body' | 'channel'>,
  merchant: Pick<MerchantRow, 'settings'> & SigningMerchant,
  series: number,
  options: {
    /** Runs with the answer before the attempt is logged (the hold writes a 2xx to its charge first). */
    onAnswer?: (result: SendResult) => Promise<void>;
    /**
     * Write the attempt before making it. For attempts no one else counts (the committing process's
     * first): if the process dies mid-attempt, the attempt, which may have reached the merchant, is
     * in the event log, and the sweeper's workflow makes only the other four.
     */
    recordStart?: boolean;
    /** The attempt was written already, claimed with its event (claimFirstAttempt): its id, to finish. */
    started?: number;
    /**
     * When the merchant accepts, the event is marked delivered (and dispatched, if asked) in the
     * write that records the attempt: the caller that decides the event's outcome.
     */
    markDelivered?: { dispatched: boolean };
  } = {},
): Promise<SendResult | null> {
  const url = merchant.settings.webhook_url;
  if (!url) return null;
  const started = options.started ?? (options.recordStart ? await startAttempt(deps.db, { event_id: event.id, series, url }) : null);
  const result = await withWebhookSpan({ url, eventId: event.id, eventType: event.type, channel: event.channel }, (traceHeaders) =>
    sendSignedWebhook({
      url,
      body: event.body,
      secrets: signingSecrets(deps.sealer, merchant),
      policy: targetPolicy(deps.config),
      resolve: deps.resolveHost,
      extraHeaders: traceHeaders,
    }),
  );
  recordWebhookAttempt(event.channel, result.outcome, result.durationMs);
  await options.onAnswer?.(result);
  const outcome = { started_at: result.startedAt, duration_ms: result.durationMs, http_status: result.httpStatus, error: result.error, response_excerpt: result.responseExcerpt };
  await writeAttemptOutcome(deps.db, { started, row: { event_id: event.id, series, url } }, outcome, result.ok ? (options.markDelivered ?? null) : null);
  return result;
}
