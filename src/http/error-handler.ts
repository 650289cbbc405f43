import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger';
import { ApiError } from './errors';

/**
 * The single place errors become responses. ApiErrors answer their own kind's status and
 * body; body-parser failures answer in the contract's shape; anything else is a generic 500
 * whose details go to the log only (no stack traces or SQL reach a client).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof ApiError) {
      res.set(error.headers()).status(error.status).json(error.body());
      return;
    }
    const parserError = error as { type?: string; status?: number };
    if (parserError.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'Request body is not valid JSON.', hint: 'Send a JSON object with Content-Type: application/json.' });
      return;
    }
    if (parserError.type === 'entity.too.large') {
      res.status(413).json({ error: 'Request body is too large.', hint: 'Bodies are limited to 100 kB.' });
      return;
    }
    if (typeof parserError.type === 'string' && parserError.status && parserError.status < 500) {
      res.status(400).json({ error: 'Request body could not be read.', hint: 'Send UTF-8 JSON with Content-Type: application/json.' });
      return;
    }
    // A path parameter that is not valid percent-encoding fails Express's decoding.
    if (error instanceof URIError || (parserError.status === 400 && error instanceof Error)) {
      res.status(400).json({ error: 'Malformed request URL.', hint: 'Percent-encode path and query values (RFC 3986).' });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json({ error: 'Internal server error.', hint: 'Try again; if it persists, contact the service operator.' });
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: 'Not found.', hint: `No route for ${req.method} ${req.path}.` });
};
