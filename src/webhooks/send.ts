import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { signPayloadWithSecrets, SIGNATURE_HEADERS } from './signature';
import { resolveWebhookTargets, WebhookTargetRefused, type HostResolver, type ResolvedAddress, type TargetPolicy } from './target';

/** The contract's per-attempt timeout for every webhook, the hold included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** How much of a merchant's answer the event log keeps. */
export const RESPONSE_EXCERPT_CHARS = 300;

/** How an attempt ended: accepted (2xx), rejected (another status), or no answer and why. */
export type SendOutcome = 'accepted' | 'rejected' | 'timeout' | 'network_error' | 'target_refused';

export interface SendResult {
  ok: boolean;
  outcome: SendOutcome;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  /** The start of the merchant's answer, for the event log and the dashboard's timeline. */
  responseExcerpt: string | null;
}

export interface SendInput {
  url: string;
  body: string;
  /** The current secret first; during a rotation's overlap the previous one follows it. */
  secrets: string[];
  policy: TargetPolicy;
  resolve?: HostResolver;
  /** Headers outside the signature (the trace context's `traceparent`). */
  extraHeaders?: Record<string, string>;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * One signed POST of an already serialised body. Each call signs afresh with the current time,
 * so every attempt carries a fresh timestamp and signature; both header names carry the value.
 * The host is resolved and checked here, on every call, and the connection goes to exactly the
 * address that passed the check.
 */
export async function sendSignedWebhook(input: SendInput): Promise<SendResult> {
  const startedAt = new Date();
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const finish = (result: Pick<SendResult, 'ok' | 'outcome' | 'httpStatus' | 'error'>, responseExcerpt: string | null = null): SendResult => ({ ...result, durationMs: Math.round(performance.now() - started), startedAt, responseExcerpt });
  const url = new URL(input.url);
  let targets: ResolvedAddress[] | undefined;
  try {
    // The attempt's timeout counts from here: a slow name lookup spends the same 10 s. Otherwise
    // a hold could be answered after its activity's limit, once the workflow had given up on it.
    targets = await withinMs(resolveWebhookTargets(url, input.policy, input.resolve), timeoutMs);
  } catch (error) {
    if (!(error instanceof WebhookTargetRefused)) throw error;
    return finish({ ok: false, outcome: 'target_refused', httpStatus: null, error: `target refused: ${error.message}` });
  }
  if (!targets) return finish({ ok: false, outcome: 'timeout', httpStatus: null, error: `timed out after ${timeoutMs} ms resolving ${url.hostname}` });
  const timestamp = Math.floor((input.now ?? Date.now)() / 1000);
  const signature = signPayloadWithSecrets(input.body, input.secrets, timestamp);
  const headers: Record<string, string> = { ...input.extraHeaders, 'content-type': 'application/json', 'user-agent': 'payments-service-webhooks/1' };
  for (const name of SIGNATURE_HEADERS) headers[name] = signature;
  try {
    const { status, excerpt } = await postPinned(url, targets, headers, input.body, Math.max(1, Math.round(timeoutMs - (performance.now() - started))));
    const ok = status >= 200 && status < 300;
    return finish({ ok, outcome: ok ? 'accepted' : 'rejected', httpStatus: status, error: ok ? null : `HTTP ${status}` }, excerpt);
  } catch (error) {
    const e = error as Error;
    const timedOut = e.name === 'TimeoutError';
    return finish({ ok: false, outcome: timedOut ? 'timeout' : 'network_error', httpStatus: null, error: timedOut ? `timed out after ${timeoutMs} ms` : `${e.name}: ${e.message}` });
  }
}

/** The promise's value, or undefined once `ms` have passed (the promise itself runs on, unobserved). */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POSTs to the URL over a connection to one of `targets` only: the socket's lookup answers the
 * checked addresses instead of asking DNS again, and the connection tries them in turn (Node 20's
 * default happy eyeballs), as any client would a name's addresses, so one that takes no
 * connection (an unreachable IPv6 address) does not fail the attempt. TLS still verifies the
 * certificate against the URL's host name. Redirects are not followed (the status is the answer).
 */
function postPinned(url: URL, targets: ResolvedAddress[], headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number; excerpt: string }> {
  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, targets);
    else callback(null, targets[0]!.address, targets[0]!.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // Once the status line is in, it is the answer: a body still arriving when the time is up, or
    // cut off, does not undo it (a merchant that answered 200 at once has accepted, whatever its body).
    let answered: { status: number; excerpt: string } | undefined;
    // PostgreSQL text holds no NUL: one in the answer (a UTF-16 or binary body) would make the
    // attempt unrecordable and lose its 2xx, so it is kept as U+FFFD like any undecodable byte.
    const answer = () => resolve({ status: answered!.status, excerpt: answered!.excerpt.replace(/\u0000/g, '\uFFFD') });
    const request = transport.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinnedLookup, agent: false },
      (response) => {
        // Drain the answer; its status decides, and its start is kept for the event log.
        const got = { status: response.statusCode ?? 0, excerpt: '' };
        answered = got;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (got.excerpt.length < RESPONSE_EXCERPT_CHARS) got.excerpt = (got.excerpt + chunk).slice(0, RESPONSE_EXCERPT_CHARS);
        });
        response.on('end', answer);
        response.on('error', answer);
      },
    );
    const timer = setTimeout(() => {
      const timeout = new Error(`timed out after ${timeoutMs} ms`);
      timeout.name = 'TimeoutError';
      request.destroy(timeout);
    }, timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (error) => {
      clearTimeout(timer);
      if (answered) answer();
      else reject(error);
    });
    request.end(body);
  });
}
