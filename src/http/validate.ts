import { z } from 'zod';
import { ValidationError } from './errors';

/**
 * Turns a zod failure into the contract's `{error, hint}`: `error` names the first problem in
 * one sentence, `hint` lists every problem with its field path so a merchant fixes all at once.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'Request body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // No body at all, or one sent with another Content-Type (only JSON is parsed).
  if (input === undefined && what === 'Request body') throw new ValidationError('Request body is missing.', 'Send a JSON object with Content-Type: application/json.');
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
