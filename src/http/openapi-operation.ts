import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorResponses, registry } from './openapi-registry';

export const AdminAuth = registry.registerComponent('securitySchemes', 'adminToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The operator token (ADMIN_TOKEN). The dashboard instead sends its session cookie and the X-Dashboard-CSRF header.',
});
export const DashboardSession = registry.registerComponent('securitySchemes', 'dashboardSession', {
  type: 'apiKey',
  in: 'cookie',
  name: 'dashboard_session',
  description: "An operator's dashboard session cookie (HttpOnly, SameSite=Strict, Secure outside development), set by POST /dashboard/session; state-changing calls also send X-Dashboard-CSRF. It opens the admin API within the operator's role (403 beyond it).",
});
export const MerchantSessionAuth = registry.registerComponent('securitySchemes', 'merchantSession', {
  type: 'apiKey',
  in: 'cookie',
  name: 'merchant_session',
  description: 'The merchant dashboard session cookie (HttpOnly, SameSite=Strict, Secure outside development), set by POST /merchant/v1/session; every change also sends X-CSRF-Token.',
});
export const WalletAuth = registry.registerComponent('securitySchemes', 'checkoutClientSecret', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Client-Secret',
  description: "The checkout's own client_secret (cs_...), from the checkout's url.",
});

/** The 429 of the admin token's throttle (src/http/admin-token-throttle.ts), on the admin API and the dashboard's sign-in. */
export const ADMIN_TOKEN_THROTTLED = 'Too many wrong admin tokens from this address: every attempt is refused until the window passes (Retry-After seconds).';

export const TAGS = {
  merchantReads: 'Extensions: merchant reads',
  admin: 'Extensions: admin API',
  wallet: 'Extensions: wallet API',
  dashboard: 'Extensions: dashboard',
  merchantDashboard: 'Extensions: merchant dashboard',
  operations: 'Extensions: operations',
  processorEvents: 'Extensions: processor events',
} as const;

export const pathId = (example: string) => z.object({ id: z.string().openapi({ description: 'The identifier in the path.', example }) });
export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
export const html = { content: { 'text/html': { schema: z.string() } } };
export const csv = { content: { 'text/csv': { schema: z.string() } } };

/** A page of a cursor-paged list: `{results, has_more, next_starting_after}`. */
export const page = (item: z.ZodType) =>
  z.object({ results: z.array(item), has_more: z.boolean(), next_starting_after: z.string().nullable().openapi({ description: 'Pass as starting_after for the next page; null on the last page.' }) });

/** What every admin list's description says about its paging, and its 404. */
export const ADMIN_PAGING = 'Pages with a cursor: pass next_starting_after as starting_after until has_more is false. The order is stable (created_at, then id; the event log by commit order).';
export const UNKNOWN_CURSOR = 'starting_after is not an item of this list (or is another merchant\'s than merchant_id).';

/** The admin API's lists: their query with the cursor, described; `maxRows` is the most one page answers, `defaultRows` when no limit is given. */
export function adminPaged(query: z.ZodObject, maxRows: number, defaultRows: number): z.ZodObject {
  return query.extend({
    starting_after: z.string().optional().openapi({ description: 'The next_starting_after of the previous page: the page starts after that item. An id that is not an item of this list (or is another merchant\'s than merchant_id) is 404.' }),
    limit: z.coerce.number().int().min(1).max(maxRows).optional().openapi({ description: `Rows per page, 1 to ${maxRows} (${defaultRows} when not given).` }),
  });
}

type Responses = Record<number, [string, z.ZodType?]>;

/** Extension operations that take an Idempotency-Key (the public and wallet POSTs all do): documented with the contract's parameter. */
export const IDEMPOTENT_OPERATIONS = new Set<string>();

/** One documented operation: id, tag, summary, auth, inputs and responses, with the shared error responses. */
export function operation(op: {
  method: RouteConfig['method'];
  path: string;
  id: string;
  tag: string;
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  responses: Responses;
  errors?: Record<number, string>;
  htmlResponse?: boolean;
  /** The 2xx answers without a schema are a CSV file (text/csv), not HTML. */
  csvResponse?: boolean;
  /** Takes the Idempotency-Key header (src/http/idempotency.ts). */
  idempotent?: boolean;
}): void {
  if (op.idempotent) IDEMPOTENT_OPERATIONS.add(op.id);
  const responses: RouteConfig['responses'] = {};
  for (const [status, [description, schema]] of Object.entries(op.responses)) {
    responses[Number(status)] = schema ? { description, ...json(schema) } : op.htmlResponse ? { description, ...html } : op.csvResponse ? { description, ...csv } : { description };
  }
  registry.registerPath({
    method: op.method,
    path: op.path,
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: op.security ?? [],
    request: {
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(op.body ? { body: { required: true, ...json(op.body) } } : {}),
    },
    responses: { ...responses, ...(op.errors ? errorResponses({ ...(op.body ? BODY_ERRORS : {}), ...op.errors }) : {}) },
  });
}

/** What the JSON body parser (src/http/json-body.ts) answers before any operation sees the body. */
const BODY_ERRORS: Record<number, string> = { 400: 'The body is not JSON.', 413: 'The body is larger than the limit (100 kB).' };
