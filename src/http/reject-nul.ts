import type { RequestHandler } from 'express';
import { ValidationError } from './errors';

function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  for (const key of Object.keys(value)) {
    if (key.includes('\u0000') || containsNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * PostgreSQL text cannot hold NUL characters; rather than let one reach a query and fail there,
 * any request carrying one in its path, query or body is refused up front.
 */
export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  let path = req.path;
  try {
    // Only a percent sign can decode to anything else.
    if (path.includes('%')) path = decodeURIComponent(path);
  } catch {
    // Malformed percent-encoding is answered by the error handler when routing decodes it.
  }
  if (path.includes('\u0000') || containsNul(req.query) || containsNul(req.body)) {
    next(new ValidationError('Request contains a NUL character.', 'Remove \\u0000 from paths, query values and text fields.'));
    return;
  }
  next();
};
