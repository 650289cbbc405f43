// constructEvent: the one call a merchant's webhook receiver makes before trusting a delivery.
import type { WebhookEvent } from './events';
import {
  DEFAULT_TOLERANCE_SECONDS,
  WebhookError,
  WebhookSignatureError,
  signatureFromHeaders,
  signPayloadWithSecrets,
  verifySignature,
  type WebhookHeaders,
} from './signature';

/** Raised when a correctly signed body is not an event envelope (not JSON, or no event_id, type and data). */
export class WebhookPayloadError extends WebhookError {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

export interface ConstructEventOptions {
  /** How far the signed timestamp may be from now, either way (default 300 s): a captured delivery cannot be replayed later. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; injectable so tests control the clock. */
  now?: () => number;
}

function verifyWithAny(rawBody: string | Buffer, header: string | undefined, secrets: readonly string[], options: ConstructEventOptions): void {
  if (secrets.length === 0) throw new TypeError('at least one signing secret is required');
  let failure: WebhookSignatureError | undefined;
  for (const secret of secrets) {
    try {
      verifySignature({ rawBody, header, secret, toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, now: options.now });
      return;
    } catch (error) {
      if (!(error instanceof WebhookSignatureError)) throw error;
      // A signature that matched but is too old says more than "no match" from another secret.
      if (failure?.reason !== 'timestamp_out_of_tolerance') failure = error;
    }
  }
  throw failure!;
}

function parseEnvelope(rawBody: string | Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('The webhook body is not JSON.');
  }
  const envelope = parsed as { event_id?: unknown; type?: unknown; data?: unknown } | null;
  if (!envelope || typeof envelope.event_id !== 'string' || typeof envelope.type !== 'string' || typeof envelope.data !== 'object' || envelope.data === null) {
    throw new WebhookPayloadError('The webhook body is not an event: it needs event_id, type and data.');
  }
  return envelope as WebhookEvent;
}

/**
 * Verifies a delivery and returns its event. `rawBody` is the body exactly as received (verify
 * before any JSON parsing: re-serialising changes the bytes); `headers` are the request's headers
 * (the canonical SERVICE-WEBHOOK-SIGNATURE or the legacy SERVICE_SIGNATURE is read). During a
 * roll of the signing secret every delivery carries one v1 signature per secret, so a receiver
 * holding either verifies; a receiver may also pass both secrets while it moves to the new one.
 * Throws WebhookSignatureError (see its `reason`) or WebhookPayloadError, both WebhookErrors.
 */
export function constructEvent(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: ConstructEventOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  verifyWithAny(rawBody, signatureFromHeaders(headers), secrets, options);
  return parseEnvelope(rawBody);
}

/**
 * For a merchant's own tests: the headers a delivery of `payload` signed with `secret` (or with
 * each of several secrets, as during a roll) carries, under both names, signed now unless
 * `timestamp` (unix seconds) is given.
 */
export function generateTestHeaders(input: { payload: string; secret: string | readonly string[]; timestamp?: number }): Record<string, string> {
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  const value = signPayloadWithSecrets(input.payload, secrets, input.timestamp ?? Math.floor(Date.now() / 1000));
  return { 'SERVICE-WEBHOOK-SIGNATURE': value, SERVICE_SIGNATURE: value };
}

/** The webhook helpers under one name: `webhooks.constructEvent(rawBody, headers, secret)`. */
export const webhooks = { constructEvent, generateTestHeaders } as const;
