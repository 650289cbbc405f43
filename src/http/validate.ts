import { z } from 'zod';
import { ValidationError } from './errors';

/** The hint for a body that is missing or is not JSON (here, and the parser's failure in error-handler.ts). */
export const JSON_BODY_HINT = 'Send a JSON object with Content-Type: application/json.';

/**
 * Turns a zod failure into the contract's `{error, hint}`: `error` names the first problem in
 * one sentence, `hint` lists every problem with its field path so a merchant fixes all at once.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'Request body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // No body at all, or one sent with another Content-Type (only JSON is parsed).
  if (input === undefined && what === 'Request body') throw new ValidationError('Request body is missing.', JSON_BODY_HINT);
  const issues = result.error.issues.map((issue) => {
    const path = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw new ValidationError(`${what} is invalid: ${issues[0]}.`, issues.join('; '));
}

const EmptyBody = z.object({}).strict();

/** For actions that take no body: none, `{}` or `null` pass; any field is refused as unknown (422). */
export function parseEmptyBody(input: unknown): void {
  parseOrThrow(EmptyBody, input ?? {});
}

/** Whether parseEmptyBody would pass this body (for an action that answers a body with its own error). */
export function isEmptyBody(input: unknown): boolean {
  return EmptyBody.safeParse(input ?? {}).success;
}

/**
 * A query whose empty parameters are left out: `?merchant_id=&type=` (the operator spec writes the
 * event log's route so) filters by nothing rather than by an empty id or type.
 */
export function withoutBlankParameters(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}
