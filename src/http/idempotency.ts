import { createHash, createHmac } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../app-deps';
import type { Sealer } from '../crypto';
import { ID_PREFIX } from '../domain/ids';
import type { Db } from '../storage/db';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, releaseIdempotencyKey } from '../storage/idempotency-keys';
import { ApiError, ValidationError } from './errors';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a request waits for the first request with its key before giving up. */
const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 50;

declare module 'express-serve-static-core' {
  interface Request {
    /** Set when the request carries an Idempotency-Key: its scope (merchant or checkout) and the key. */
    idempotency?: { scope: string; key: string };
  }
}

/** Raised when a key is reused for another request, or its first request is still running after the wait. */
export class IdempotencyError extends ApiError {
  constructor(message: string, hint: string) {
    super('conflict', message, hint);
  }
}

/**
 * A key means something only inside its scope: the API key's merchant, or the wallet's checkout.
 * Requests made with the merchant's client secret, which is browser-safe (any page of the merchant
 * shows it), have a scope of their own, so whoever holds it can neither take nor probe the keys
 * of the merchant's server-side requests.
 */
function scopeOf(req: Request): string {
  if (req.merchant) return req.merchantCredential === 'client_secret' ? `client_secret:${req.merchant.id}` : `merchant:${req.merchant.id}`;
  if (req.checkout) return `checkout:${req.checkout.id}`;
  throw new Error('idempotent() must run after authentication');
}

/**
 * The digest a key's later requests are compared by. Keyed (HMAC): bodies carry the last four of
 * an SSN and card numbers with their cvc, values so few that a plain hash stored beside the
 * answer would give them back to anyone who reads the table and tries them all.
 */
function requestHash(req: Request, digestKey: string): string {
  return createHmac('sha256', digestKey).update(`idempotency\n${req.method} ${req.baseUrl}${req.path}\n${JSON.stringify(req.body ?? null)}`).digest('hex');
}

/** A stored answer in plain JSON: sealed (`v1.…`, never JSON), or stored before answers were sealed and kept as it was. */
function openAnswer(sealer: Sealer, stored: string): string {
  return stored.startsWith('v1.') ? sealer.open(stored) : stored;
}

function replay(res: Response, status: number, body: string): void {
  res.status(status).set(REPLAYED_HEADER, 'true').type('application/json').send(body);
}

/** The scope of keys sent with the admin token (the operator's: one for the whole admin API). */
export const ADMIN_IDEMPOTENCY_SCOPE = (): string => 'admin';

/**
 * Idempotency keys for POST routes (after authentication). Without the header the request runs
 * as usual. With it, the first request claims a row in idempotency_keys and records its answer;
 * the same key with the same request replays that answer (with `Idempotent-Replayed: true`),
 * with another request it is 422, and while the first is still running a second one waits for
 * it instead of doing the work twice. A 5xx or a 429 is not recorded, so a retry runs again.
 */
export function idempotent({ db, sealer }: Pick<AppDeps, 'db' | 'sealer'>, options: { scope?: (req: Request) => string } = {}): RequestHandler {
  const digestKey = sealer.fingerprintKey();
  // Without the header, the request passes on at once: no promise for the router to wait on.
  return (req, res, next) => {
    const key = req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    void withKey(req, res, next, key);
  };

  async function withKey(req: Request, res: Response, next: NextFunction, key: string): Promise<void> {
    try {
      if (!KEY_PATTERN.test(key)) {
        throw new ValidationError('Invalid Idempotency-Key header.', 'Use 1 to 255 printable ASCII characters without spaces, for example a UUID.');
      }
      const scope = options.scope?.(req) ?? scopeOf(req);
      const hash = requestHash(req, digestKey);
      const deadline = Date.now() + WAIT_FOR_FIRST_MS;
      for (;;) {
        if (await claimIdempotencyKey(db, scope, key, hash)) break;
        const row = await findIdempotencyKey(db, scope, key);
        if (!row) continue; // the first request failed and released the key: claim it again
        if (row.request_hash !== hash) {
          throw new IdempotencyError(
            'Idempotency-Key already used for a different request.',
            'A key may be reused only with the same method, path and body; use a new key for a new request.',
          );
        }
        if (row.status !== null && row.response_body !== null) return replay(res, row.status, openAnswer(sealer, row.response_body));
        if (Date.now() > deadline) {
          throw new IdempotencyError('A request with this Idempotency-Key is still in progress.', 'Retry with the same key later to receive its result.');
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      req.idempotency = { scope, key };
      recordAnswer(db, sealer, res, scope, key);
      next();
    } catch (error) {
      next(error);
    }
  }
}

/**
 * Answers that decided nothing and ask the caller to try again: a 5xx, and a 429 (a velocity limit,
 * with Retry-After). They are not recorded, so the retry they ask for, under the same key, runs.
 */
const isTryAgain = (status: number) => status >= 500 || status === 429;

/**
 * Records the answer before it is sent, so a waiting or retried request never sees a half-finished
 * key. The answer is stored sealed (AES-256-GCM, like webhook secrets): it may carry what the service
 * otherwise keeps only as a hash or sealed, such as a created checkout's client_secret and url.
 */
function recordAnswer(db: Db, sealer: Sealer, res: Response, scope: string, key: string): void {
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    const status = res.statusCode;
    const stored = isTryAgain(status) ? releaseIdempotencyKey(db, scope, key) : completeIdempotencyKey(db, scope, key, status, sealer.seal(JSON.stringify(body)));
    stored.then(
      () => send(body),
      () => send(body),
    );
    return res;
  };
}

/**
 * An id derived from the request's idempotency key (prefix + 24 base62 characters of a SHA-256),
 * so work that starts a workflow gets the same workflow id however often it is retried.
 * Undefined without a key.
 */
export function idempotentId(req: Request, kind: keyof typeof ID_PREFIX): string | undefined {
  if (!req.idempotency) return undefined;
  const digest = createHash('sha256').update(`${req.idempotency.scope}\0${req.idempotency.key}`).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return ID_PREFIX[kind] + Array.from(digest.subarray(0, 24), (byte) => alphabet[byte % 62]).join('');
}

/** The wallet attempt's idempotency reference (the charge's attempt_key), derived from the key. */
export function idempotentAttemptId(req: Request): string | undefined {
  if (!req.idempotency) return undefined;
  return `idem-${createHash('sha256').update(`${req.idempotency.scope}\0${req.idempotency.key}`).digest('hex')}`;
}
