import { signPayload, SIGNATURE_HEADERS } from './signature';

/** The contract's per-attempt timeout for every webhook, the hold included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

export interface SendResult {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  /** The start of the merchant's answer (for the dashboard's timeline); null when none arrived. */
  responseExcerpt: string | null;
}

/** How much of a merchant's answer the event log keeps. */
export const RESPONSE_EXCERPT_CHARS = 300;

/**
 * One signed POST of an already serialised body. Each call signs afresh with the current time,
 * so every attempt carries a fresh timestamp and signature; both header names carry the value.
 */
export async function sendSignedWebhook(input: { url: string; body: string; secret: string; timeoutMs?: number; now?: () => number }): Promise<SendResult> {
  const startedAt = new Date();
  const started = performance.now();
  const timestamp = Math.floor((input.now ?? Date.now)() / 1000);
  const signature = signPayload(input.body, input.secret, timestamp);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'payments-service-webhooks/1' };
  for (const name of SIGNATURE_HEADERS) headers[name] = signature;
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      headers,
      body: input.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(input.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    });
    // Drained so the connection is reused; its start is kept for the event log.
    const text = await response.text().catch(() => '');
    const ok = response.status >= 200 && response.status < 300;
    return { ok, httpStatus: response.status, error: ok ? null : `HTTP ${response.status}`, durationMs: Math.round(performance.now() - started), startedAt, responseExcerpt: text.slice(0, RESPONSE_EXCERPT_CHARS) };
  } catch (error) {
    const e = error as Error;
    const message = e.name === 'TimeoutError' ? `timed out after ${input.timeoutMs ?? WEBHOOK_TIMEOUT_MS} ms` : `${e.name}: ${(e as { cause?: Error }).cause?.message ?? e.message}`;
    return { ok: false, httpStatus: null, error: message, durationMs: Math.round(performance.now() - started), startedAt, responseExcerpt: null };
  }
}
