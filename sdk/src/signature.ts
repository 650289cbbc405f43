// Webhook signatures: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
// Signing the timestamp with the body lets a receiver refuse replays of an old delivery.
// One module for both sides: the service signs with it (src/webhooks/signature.ts re-exports it)
// and merchants verify with it, so the two cannot drift apart. Node built-ins only.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Canonical header first, then the legacy alias; both carry the same value. */
export const SIGNATURE_HEADERS = ['SERVICE-WEBHOOK-SIGNATURE', 'SERVICE_SIGNATURE'] as const;

export const DEFAULT_TOLERANCE_SECONDS = 300;

const SCHEME = 'v1';

export type WebhookSignatureFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_out_of_tolerance';

/** Every error a webhook's verification raises: catch this one to answer any bad delivery 400. */
export class WebhookError extends Error {}

/**
 * Raised when a delivery's signature header is missing or malformed, matches no v1
 * signature, or carries a timestamp outside the tolerance.
 */
export class WebhookSignatureError extends WebhookError {
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

function assertTimestamp(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError(`timestamp must be whole unix seconds, got ${timestampSeconds}`);
  }
}

function computeSignature(rawBody: string | Buffer, secret: string, timestampSeconds: number): string {
  // A Buffer body is hashed as received, so no re-encoding can change the signed bytes.
  return createHmac('sha256', secret)
    .update(`${timestampSeconds}.`)
    .update(rawBody)
    .digest('hex');
}

function assertSecret(secret: string): void {
  // An empty key would make every signature forgeable by anyone who knows the scheme.
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('the signing secret must be a non-empty string');
}

export function signPayload(rawBody: string, secret: string, timestampSeconds: number): string {
  return signPayloadWithSecrets(rawBody, [secret], timestampSeconds);
}

/**
 * One header value with a v1 signature per secret, in the order given: while a secret is being
 * rotated the sender signs with the new one and the old one, and a receiver that knows either
 * accepts the delivery.
 */
export function signPayloadWithSecrets(rawBody: string, secrets: readonly string[], timestampSeconds: number): string {
  assertTimestamp(timestampSeconds);
  if (secrets.length === 0) throw new TypeError('at least one signing secret is required');
  secrets.forEach(assertSecret);
  const signatures = secrets.map((secret) => `${SCHEME}=${computeSignature(rawBody, secret, timestampSeconds)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

interface ParsedHeader {
  timestamp: number;
  signatures: string[];
}

function parseHeader(header: string): ParsedHeader {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    // Several v1 entries let a sender overlap two secrets while rotating them.
    else if (key === SCHEME) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookSignatureError(
      'malformed_header',
      `Signature header must look like t=<timestamp>,${SCHEME}=<signature>.`,
    );
  }
  return { timestamp, signatures };
}

function constantTimeEqual(expected: string, candidate: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(candidate, 'utf8');
  // timingSafeEqual throws on unequal lengths; the length of a hex digest is no secret.
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface VerifySignatureInput {
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Buffer;
  header: string | null | undefined;
  secret: string;
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; injectable so tests control the clock. */
  now?: () => number;
}

export function verifySignature(input: VerifySignatureInput): void {
  const { rawBody, header, secret, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS } = input;
  const now = input.now ?? Date.now;
  if (!(toleranceSeconds >= 0)) throw new TypeError('toleranceSeconds must be zero or more');
  assertSecret(secret);
  if (!header) {
    throw new WebhookSignatureError('missing_header', 'No webhook signature header found.');
  }
  const { timestamp, signatures } = parseHeader(header);

  const expected = computeSignature(rawBody, secret, timestamp);
  // Every candidate is compared, so the time taken does not reveal which one matched.
  const matched = signatures.reduce((found, candidate) => constantTimeEqual(expected, candidate) || found, false);
  if (!matched) {
    throw new WebhookSignatureError(
      'no_matching_signature',
      'No signature matches the expected signature for this payload.',
    );
  }

  // Both directions are checked: a timestamp far in the future is as suspect as an old one.
  const ageSeconds = Math.floor(now() / 1000) - timestamp;
  if (Math.abs(ageSeconds) > toleranceSeconds) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `Timestamp is ${ageSeconds} s from now, outside the ${toleranceSeconds} s tolerance.`,
    );
  }
}

/** Request headers as Node's http module (lowercased), a fetch `Headers` object or a plain object of any case gives them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[0];
}

/** The signature header's value: the canonical header, else the legacy alias (both carry the same value). */
export function signatureFromHeaders(headers: WebhookHeaders): string | undefined {
  for (const name of SIGNATURE_HEADERS) {
    const value = headerValue(headers, name);
    if (value) return value;
  }
  return undefined;
}

/** Test helper: a valid header for `payload`, signed now unless a timestamp is given. */
export function generateTestHeader(input: { payload: string; secret: string; timestamp?: number }): string {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return signPayload(input.payload, input.secret, timestamp);
}
