import express, { type Request, type RequestHandler } from 'express';
import { BodyNotDecodedError } from './errors';

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Parse failures held back until the credential has been checked (merchant and admin APIs). */
const heldBack = new WeakMap<Request, unknown>();

/**
 * The APIs that read every non-empty body as JSON, whatever its Content-Type, after the credential:
 * /api/v1 and /admin/v1 as Express routes them, in any letter case and with or without a path after.
 */
const READS_ANY_BODY = /^\/(api|admin)\/v1(\/|\?|$)/i;
const readsAnyBody = (path: string) => READS_ANY_BODY.test(path);

/**
 * `express.json` (accepting any JSON value), except that on the merchant and admin APIs a body
 * that cannot be read (not JSON, too large, an unknown charset) is reported only once the
 * credential has passed (a compressed body that does not decode included): the contract answers a missing or invalid credential 422 (the admin API
 * 401) whatever else is wrong with the request. requireMerchant and the admin guards raise the
 * held-back failure (400, or 413 for a body too large) after it.
 */
export function jsonBody(options: { limit: string }): RequestHandler {
  // Not strict: any JSON parses, so `123` or `null` reach validation and are answered 422 as an
  // invalid value (not an object); only text that is not JSON at all is the 400.
  // On the merchant and admin APIs every body is read as JSON, whatever its Content-Type says: the
  // contract answers a body that cannot be parsed as JSON with 400, and a valid JSON body sent as
  // text/plain or (curl's default) form-urlencoded is still the request its sender meant. Read as
  // no body, it would have been taken for one: an admin refund asked with a partial amount refunded
  // in full, a cancellation asked for the period end cancelled at once. Elsewhere only a JSON
  // Content-Type is parsed, as express.json does by default. An empty body stays absent (422
  // "Request body is missing."), never an empty object.
  const parse = express.json({ ...options, strict: false, type: (req) => JSON_TYPE.test(String(req.headers['content-type'] ?? '')) || (readsAnyBody(req.url ?? '') && req.headers['content-length'] !== '0') });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      const failure = undecodedBody(req, error) ?? error;
      if ((failure instanceof BodyNotDecodedError || isBodyReadFailure(failure)) && readsAnyBody(req.path)) {
        heldBack.set(req, failure);
        next();
        return;
      }
      next(failure);
    });
}

/**
 * A compressed body whose bytes do not decode. body-parser passes zlib's own error on with a 400
 * status and no `type` (every failure of its own has one), which the error handler could not tell
 * from a malformed URL; it becomes the client's error, held back like any other body failure.
 */
function undecodedBody(req: Request, error: unknown): BodyNotDecodedError | undefined {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const failure = error as { type?: unknown; status?: unknown } | undefined;
  if (!(error instanceof Error) || encoding === 'identity' || failure?.type !== undefined || failure?.status !== 400) return undefined;
  return new BodyNotDecodedError(encoding);
}

/**
 * A body the parser refused for the client's reason (not JSON, too large, an unknown charset or
 * encoding): on the merchant and admin APIs, answered only once the credential has passed.
 */
export function isBodyReadFailure(error: unknown): boolean {
  const failure = error as { type?: unknown; status?: unknown } | undefined;
  return typeof failure?.type === 'string' && typeof failure.status === 'number' && failure.status < 500;
}

/** The request's held-back body failure (not JSON, too large, ...), if its body could not be read. */
export function heldBackBodyError(req: Request): unknown {
  return heldBack.get(req);
}
