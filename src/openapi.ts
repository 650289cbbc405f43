import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { EXAMPLE_REQUEST_ID, registry } from './http/openapi-registry';
import { IDEMPOTENT_OPERATIONS, TAGS } from './http/openapi-operation';
import { describeFields } from './http/openapi-glossary';
import { ServiceUnavailableError } from './http/errors';
import { JSON_BODY_HINT } from './http/validate';
// Importing the schema modules registers their paths (the contract's first, then the extensions).
import './customers/schemas';
import './charges/schemas';
import './checkouts/schemas';
import './kyc/schemas';
import './device-pings/schemas';
import './readback/schemas';
import './admin/openapi';
import './subscriptions/openapi';
import './wallet/openapi';
import './dashboards/operators/openapi';
import './events/openapi';
import './identity/openapi';
import './identity/operator-openapi';
import './processor-events/openapi';
import './merchant-accounts/dashboard-openapi';
import './dashboards/merchants/openapi';

export const API_VERSION = '1.4.0';

/** The contract's nine operations: their ids and tags (their shapes come from the schemas). */
const CONTRACT_OPERATIONS: Record<string, { id: string; tag: string }> = {
  'post /api/v1/customers': { id: 'createCustomer', tag: 'Customers' },
  'patch /api/v1/customers/{id}': { id: 'updateCustomer', tag: 'Customers' },
  'get /api/v1/customers/search': { id: 'searchCustomers', tag: 'Customers' },
  'post /api/v1/checkouts': { id: 'createCheckout', tag: 'Checkouts' },
  'post /api/v1/charges/{id}/refund': { id: 'refundCharge', tag: 'Charges' },
  'get /api/v1/charges/{id}': { id: 'getCharge', tag: 'Charges' },
  'post /api/v1/kyc/upsert': { id: 'upsertKyc', tag: 'KYC' },
  'post /api/v1/device_pings': { id: 'createDevicePing', tag: 'Device pings' },
  'get /api/v1/device_pings/latest_geo_check': { id: 'getLatestGeoCheck', tag: 'Device pings' },
};

const TAG_DESCRIPTIONS: Array<{ name: string; description: string }> = [
  { name: 'Customers', description: 'The contract: customers, scoped to the API key\'s merchant.' },
  { name: 'Checkouts', description: 'The contract: checkout sessions the customer pays on the hosted page.' },
  { name: 'Charges', description: 'The contract: one charge per payment attempt; refunds.' },
  { name: 'KYC', description: 'The contract: identity records submitted by the merchant.' },
  { name: 'Device pings', description: 'The contract: device locations and geo checks.' },
  { name: TAGS.merchantReads, description: 'Not in the contract: merchants read back what happened (cursor pagination with limit and starting_after).' },
  { name: TAGS.admin, description: 'Not in the contract: the operator\'s API behind the dashboard.' },
  { name: TAGS.wallet, description: 'Not in the contract: the hosted checkout page and its API (X-Client-Secret).' },
  { name: TAGS.dashboard, description: 'Not in the contract: the dashboard\'s pages and session.' },
  { name: TAGS.merchantDashboard, description: 'Not in the contract: the merchant\'s own people, signed in with a session cookie (X-CSRF-Token on every change).' },
  { name: TAGS.operations, description: 'Not in the contract: health, readiness and this description.' },
  { name: TAGS.processorEvents, description: 'Not in the contract: events from the processors\' own accounts (Stripe\'s webhooks), verified by their signatures.' },
  { name: 'Webhooks', description: 'Events sent to the merchant\'s webhook_url, signed with the wss_ secret.' },
];

type Operation = { operationId?: string; tags?: string[]; parameters?: unknown[]; responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }> };

/** Every public and wallet POST takes an optional Idempotency-Key (one middleware, documented once), and so do the extensions marked idempotent. */
function documentIdempotency(doc: { paths: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> }): void {
  doc.components!.parameters = {
    ...doc.components!.parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Extension: makes the POST safe to retry. The same key with the same request answers the first result again (header Idempotent-Replayed: true); ' +
        'with another request it is 422; while the first is still running the second waits for it. Keys are kept 24 hours, per merchant (wallet: per checkout; ' +
        'merchant dashboard: per account, apart from the API\'s keys).',
      schema: { type: 'string', maxLength: 255, example: '5f0c6c1e-7d0b-4b5e-9a8e-2f4d1a0c9b11' },
    },
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    const post = ops.post;
    if (!post || !(path.startsWith('/api/v1/') || path.startsWith('/wallet/v1/') || IDEMPOTENT_OPERATIONS.has(post.operationId ?? ''))) continue;
    post.parameters = [...(post.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  }
}

/** One error answer of the document: its description and one example of the `{error, hint}` body. */
function errorAnswer(description: string, example: { name: string; summary: string; error: string; hint?: string }) {
  const value = { error: example.error, ...(example.hint ? { hint: example.hint } : {}), request_id: EXAMPLE_REQUEST_ID };
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { [example.name]: { summary: example.summary, value } } } } };
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Answers every operation may give, documented once here where an operation does not describe
 * its own: the 503 with Retry-After of the error handler when PostgreSQL or Temporal cannot be
 * reached in time (nothing was done; the same request may be sent again), and, for every call that
 * may carry a body, the JSON body parser's 400 and 413.
 */
function documentSharedAnswers(doc: { paths: Record<string, Record<string, Operation>> }): void {
  const unavailable = new ServiceUnavailableError();
  const shared: Record<string, ReturnType<typeof errorAnswer> & { headers?: Record<string, unknown> }> = {
    503: {
      ...errorAnswer('The database or Temporal could not be reached in time: nothing was done. Send the same request again after Retry-After seconds (with its Idempotency-Key for a create).', {
        name: 'unavailable', summary: 'The database or Temporal did not answer in time', error: unavailable.message, hint: unavailable.hint,
      }),
      headers: { 'Retry-After': { description: 'Seconds to wait before sending the request again.', schema: { type: 'integer', minimum: 1 } } },
    },
  };
  const bodyAnswers = {
    400: errorAnswer('The body is not JSON (a call with a body of another kind).', { name: 'not_json', summary: 'A body that is not JSON', error: 'Request body is not valid JSON.', hint: JSON_BODY_HINT }),
    413: errorAnswer('The body is larger than the limit (100 kB).', { name: 'too_large', summary: 'A body over 100 kB', error: 'Request body is too large.', hint: 'Bodies are limited to 100 kB.' }),
  };
  for (const ops of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op.responses) continue;
      const answers = BODY_METHODS.has(method) ? { ...shared, ...bodyAnswers } : shared;
      for (const [status, answer] of Object.entries(answers)) op.responses[status] ??= answer;
    }
  }
}

/**
 * Every change on the admin API may answer 403: a dashboard session whose operator role does not
 * allow it (the admin token may do everything). Documented once here where an operation does not
 * describe its own.
 */
function documentOperatorRoles(doc: { paths: Record<string, Record<string, Operation>> }): void {
  const forbidden = {
    description: 'A dashboard session whose operator role does not allow this change; the hint names the roles that may (the admin token may do everything).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/v1/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      if (BODY_METHODS.has(method) && op.responses) op.responses['403'] ??= forbidden;
    }
  }
}

let cached: object | undefined;

/** The machine-readable description, generated from the schemas that validate requests. */
export function openApiDocument(apiBaseUrl: string): object {
  if (cached) return cached;
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Payments service API',
      version: API_VERSION,
      description:
        'Hosted checkout for deposits, purchases, subscriptions and withdrawals, with signed webhooks. ' +
        'The operations tagged Customers, Checkouts, Charges, KYC and Device pings are the contract (version 1.4.0); ' +
        'everything tagged "Extensions: ..." is ours, beside it.',
    },
    servers: [{ url: apiBaseUrl }],
    tags: TAG_DESCRIPTIONS,
  }) as unknown as Parameters<typeof documentIdempotency>[0];
  for (const [key, meta] of Object.entries(CONTRACT_OPERATIONS)) {
    const [method, path] = key.split(' ') as [string, string];
    const op = doc.paths[path]?.[method];
    if (!op) throw new Error(`contract operation ${key} is not registered`);
    op.operationId = meta.id;
    op.tags = [meta.tag];
  }
  documentIdempotency(doc);
  documentSharedAnswers(doc);
  documentOperatorRoles(doc);
  describeFields(doc);
  cached = doc;
  return cached;
}
