import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
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

type LoggedRequest = IncomingMessage & { id?: string; originalUrl?: string };

/** A 503 is an answer (not ready), not a failure of ours. */
function accessLevel(statusCode: number, error: Error | undefined): 'info' | 'warn' | 'error' {
  return statusCode === 503 ? 'warn' : error || statusCode >= 500 ? 'error' : 'info';
}

/**
 * Every request gets a request id (answered in X-Request-Id, included in every error body) and
 * one structured access-log line when it ends: its id, method and redacted URL, the status and the
 * duration in milliseconds ("request completed", "request aborted", or "request errored" with the
 * error for a failure). Headers are not logged at all: they carry the API key, the admin token and
 * client secrets. The line is built only when its level is logged.
 */
export function accessLog(logger: Logger) {
  return (req: LoggedRequest, res: ServerResponse, next: () => void): void => {
    const started = Date.now();
    req.id ||= requestIdFor(req, res);
    let ended = false;
    const end = (error?: Error) => {
      if (ended) return;
      ended = true;
      const level = accessLevel(res.statusCode, error);
      if (!logger.isLevelEnabled(level)) return;
      const line = { req: { id: req.id, method: req.method, url: redactUrl(req.originalUrl || req.url) }, res: { statusCode: res.headersSent ? res.statusCode : null } };
      if (error || res.statusCode >= 500) {
        logger[level]({ ...line, err: error ?? new Error(`failed with status code ${res.statusCode}`), responseTime: Date.now() - started }, 'request errored');
      } else {
        logger[level]({ ...line, responseTime: Date.now() - started }, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
      }
    };
    res.on('finish', end);
    res.on('close', end);
    res.on('error', end);
    next();
  };
}

export function requestIdOf(req: IncomingMessage): string | undefined {
  const id = (req as IncomingMessage & { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}
