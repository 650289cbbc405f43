import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import { ApiError, ServiceUnavailableError, isTransientDependencyFailure } from './errors';
import { requestIdOf } from './request-context';
import { JSON_BODY_HINT } from './validate';
import { isBodyReadFailure } from './json-body';

/** Every error body carries the request id, so a merchant's report can be matched to our logs. */
function send(req: Request, res: Response, status: number, body: Record<string, unknown>): void {
  res.status(status).json({ ...body, request_id: requestIdOf(req) });
}

/**
 * The single place errors become responses. ApiErrors answer their own kind's status and
 * body; body-parser failures answer in the contract's shape; anything else is a generic 500
 * whose details go to the log only (no stack traces or SQL reach a client).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof ApiError) {
      res.set(error.headers());
      send(req, res, error.status, error.body());
      return;
    }
    if (isTransientDependencyFailure(error)) {
      logger.warn({ err: error, method: req.method, path: req.path, request_id: requestIdOf(req) }, 'dependency unavailable');
      const unavailable = new ServiceUnavailableError();
      res.set(unavailable.headers());
      send(req, res, unavailable.status, unavailable.body());
      return;
    }
    const parserError = error as { type?: string; status?: number };
    if (parserError.type === 'entity.parse.failed') {
      send(req, res, 400, { error: 'Request body is not valid JSON.', hint: JSON_BODY_HINT });
      return;
    }
    if (parserError.type === 'entity.too.large') {
      send(req, res, 413, { error: 'Request body is too large.', hint: 'Bodies are limited to 100 kB.' });
      return;
    }
    if (isBodyReadFailure(error)) {
      send(req, res, 400, { error: 'Request body could not be read.', hint: 'Send UTF-8 JSON with Content-Type: application/json.' });
      return;
    }
    // A path parameter that is not valid percent-encoding fails Express's decoding.
    if (error instanceof URIError || (parserError.status === 400 && error instanceof Error)) {
      send(req, res, 400, { error: 'Malformed request URL.', hint: 'Percent-encode path and query values (RFC 3986).' });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path, request_id: requestIdOf(req) }, 'unhandled error');
    send(req, res, 500, { error: 'Internal server error.', hint: 'Try again; if it persists, contact the service operator.' });
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  send(req, res, 404, { error: 'Not found.', hint: `No route for ${req.method} ${req.path}.` });
};
