import { isTransientTemporalFailure } from '../temporal/transient-errors';

/**
 * The one error family of the HTTP layer. Every error a handler raises is one of these; the
 * error handler maps each kind to its status through STATUS_BY_KIND, so no handler picks a
 * status code itself. Bodies are the contract's `{error, hint}` (hint omitted where the
 * contract shows `{error}` alone) plus any extra fields a specific error carries.
 */
export type ErrorKind =
  | 'bad_json'
  | 'authentication'
  | 'admin_authentication'
  | 'validation'
  | 'not_found'
  | 'admin_not_found'
  | 'feature_disabled'
  | 'conflict'
  | 'unsupported'
  | 'refund'
  | 'rate_limited'
  | 'unavailable'
  | 'route_not_found'
  | 'merchant_session'
  | 'merchant_forbidden'
  | 'merchant_not_found'
  | 'operator_forbidden';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  // The contract answers unparseable JSON with 400.
  bad_json: 400,
  // The contract never uses 401 for merchants: a missing or wrong credential is 422.
  authentication: 422,
  // The admin API is ours: the operator spec fixes 401 for a missing or wrong admin token.
  admin_authentication: 401,
  validation: 422,
  // Records of another merchant are reported exactly like missing ones, never 404 or 403.
  not_found: 422,
  // The admin API is not bound by the merchant contract: a missing record there is a plain 404.
  admin_not_found: 404,
  // KYC and device pings answer 404 when the operator turned them off for the account.
  feature_disabled: 404,
  conflict: 422,
  unsupported: 422,
  refund: 422,
  // Velocity limits on payment attempts, and wrong admin tokens: the standard status, with Retry-After.
  rate_limited: 429,
  // A dependency (Temporal, PostgreSQL) refused or could not be reached for a moment: nothing was decided, try again.
  unavailable: 503,
  route_not_found: 404,
  // The merchant dashboard's API (operator spec, section 7): no session, a wrong password, a missing CSRF header.
  merchant_session: 401,
  // A person's call beyond their role.
  merchant_forbidden: 403,
  // Under /merchant/v1 another merchant's object is a 404, like a missing one.
  merchant_not_found: 404,
  // An operator's dashboard session calling the admin API beyond their operator role.
  operator_forbidden: 403,
};

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly hint?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Response headers the error carries (Retry-After on a 429). */
  headers(): Record<string, string> {
    return {};
  }

  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }

  body(): Record<string, unknown> {
    return { error: this.message, ...(this.hint === undefined ? {} : { hint: this.hint }), ...this.extra };
  }
}

/** Raised when a request's input breaks a schema or a business rule of the contract. */
export class ValidationError extends ApiError {
  constructor(message: string, hint?: string) {
    super('validation', message, hint);
  }
}

/** Raised when a request body does not decode by its Content-Encoding (gzip, br or deflate). */
export class BodyNotDecodedError extends ApiError {
  constructor(encoding: string) {
    super(
      'bad_json',
      'Request body could not be decoded.',
      `The body is not valid ${encoding} data: compress the JSON with ${encoding}, or send it uncompressed without Content-Encoding.`,
    );
  }
}

/** Raised when a record is missing or belongs to another merchant (the two are indistinguishable). */
export class NotFoundError extends ApiError {
  constructor(message: string, hint?: string) {
    super('not_found', message, hint);
  }
}

/** Raised when a unique value (email, phone, internal_id) is already taken within the business. */
export class ConflictError extends ApiError {
  constructor(message: string, hint?: string) {
    super('conflict', message, hint);
  }
}

/** Raised when a merchant credential (API key or client secret) is missing or unknown. */
export class AuthenticationError extends ApiError {
  constructor(message: string) {
    super('authentication', message);
  }
}

/** Raised when the admin bearer token is missing or wrong. */
export class AdminAuthenticationError extends ApiError {
  constructor(message = 'Admin token not valid.', hint = 'Send Authorization: Bearer <ADMIN_TOKEN>, or sign in to the operator dashboard at /dashboard/login.') {
    super('admin_authentication', message, hint);
  }
}

/** Raised when one of the operator's people calls the admin API beyond their operator role. */
export class OperatorForbiddenError extends ApiError {
  constructor(message: string, hint: string) {
    super('operator_forbidden', message, hint);
  }
}

/** Raised when the operator turned a feature off for the account (KYC, device pings). */
export class FeatureDisabledError extends ApiError {
  constructor(message: string, hint: string) {
    super('feature_disabled', message, hint);
  }
}

/** Raised when the account or the checkout does not allow what was asked (flows, payment options). */
export class UnsupportedError extends ApiError {
  constructor(message: string, hint?: string) {
    super('unsupported', message, hint);
  }
}

/** Raised by the admin API when the merchant, review, charge or event named in the path does not exist. */
export class AdminNotFoundError extends ApiError {
  constructor(message: string, hint?: string) {
    super('admin_not_found', message, hint);
  }
}

/**
 * Raised when a card or a client IP made more payment attempts than the merchant's hourly limit,
 * or a client address presented too many wrong admin tokens (src/http/admin-token-throttle.ts).
 */
export class RateLimitedError extends ApiError {
  constructor(
    message: string,
    hint: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message, hint);
  }

  override headers(): Record<string, string> {
    return { 'Retry-After': String(this.retryAfterSeconds) };
  }
}

/**
 * A dependency (Temporal, PostgreSQL) refused, lost or could not take a request for a reason
 * that passes (a workflow task being retried, a timeout, a busy server, a refused connection),
 * after our own retries where there are any: nothing was decided that the caller must know of,
 * and the same request can be sent again after Retry-After (with its idempotency key for a create).
 */
export class ServiceUnavailableError extends ApiError {
  constructor(
    message = 'The service is briefly unavailable.',
    hint = 'Retry the request in a moment; with an Idempotency-Key a retried create is made once.',
    readonly retryAfterSeconds = 1,
  ) {
    super('unavailable', message, hint);
  }

  override headers(): Record<string, string> {
    return { 'Retry-After': String(this.retryAfterSeconds) };
  }
}

/** Socket errors and pool time-outs of the database driver. */
const TRANSIENT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03']);

/**
 * The node-postgres driver's own errors for a connection lost under a query (the server stopped or
 * restarted, the socket closed). They carry no code and no class of their own, so these texts,
 * written by the driver, are the only way to know them.
 */
const PG_CONNECTION_LOST_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);

/** The driver's text as it reaches us: alone, or after the SQL that knex writes in front of it (`<sql> - <text>`). */
function isConnectionLostMessage(message: string): boolean {
  if (PG_CONNECTION_LOST_MESSAGES.has(message)) return true;
  const separator = message.lastIndexOf(' - ');
  return separator > 0 && PG_CONNECTION_LOST_MESSAGES.has(message.slice(separator + 3));
}

/**
 * Whether an error is a dependency that is down or overloaded for a moment: a transient Temporal
 * failure (src/temporal/transient-errors.ts decides which), or the database refusing, dropping or
 * timing out (in the error or one of its causes).
 */
export function isTransientDependencyFailure(error: unknown): boolean {
  if (isTransientTemporalFailure(error)) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const e = current as { name?: unknown; code?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && TRANSIENT_SOCKET_CODES.has(e.code)) return true;
    if (e.name === 'KnexTimeoutError') return true;
    if (e.code === undefined && current instanceof Error && isConnectionLostMessage(current.message)) return true;
    current = e.cause;
  }
  return false;
}

/** Raised under /merchant/v1 without a live session (or a change without its CSRF header), and for a wrong email or password. */
export class MerchantSessionError extends ApiError {
  constructor(message = 'Sign in first.', hint?: string) {
    super('merchant_session', message, hint);
  }
}

/** Raised when a merchant's person calls beyond their role. */
export class MerchantForbiddenError extends ApiError {
  constructor(message: string, hint: string) {
    super('merchant_forbidden', message, hint);
  }
}

/** Raised under /merchant/v1 when the record is missing or another merchant's (the two are indistinguishable). */
export class MerchantNotFoundError extends ApiError {
  constructor(message: string, hint?: string) {
    super('merchant_not_found', message, hint);
  }
}
