import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { LevelWithSilent } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger';

/** A caller's own X-Request-Id is kept when it is short and plain; anything else gets ours. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{8,100}$/;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id of ours, for a request whose caller sent none we keep (and one refused before it was read). */
export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, '')}`;
}

function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && CALLER_REQUEST_ID.test(incoming) ? incoming : newRequestId();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/**
 * The query values that are secrets (the wallet link's client_secret) or a person's contact
 * details (customer search by email or phone_number, the admin search's q, which may be part of
 * an email address) never reach a log line.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  return url.replace(/([?&](?:client_secret|token|api_key|email|phone_number|q)=)[^&#]*/gi, '$1[redacted]');
}

/**
 * Every request gets a request id (answered in X-Request-Id, included in every error body) and
 * one structured access-log line through pino-http: method, redacted URL, status, duration.
 * Headers are not logged at all: they carry the API key, the admin token and client secrets.
 */
export function accessLog(logger: Logger) {
  return pinoHttp<IncomingMessage, ServerResponse, never>({
    logger,
    genReqId: requestIdFor,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    // A 503 is an answer (not ready), not a failure of ours.
    customLogLevel: (_req, res, error): LevelWithSilent => (res.statusCode === 503 ? 'warn' : error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

export function requestIdOf(req: IncomingMessage): string | undefined {
  const id = (req as IncomingMessage & { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}
