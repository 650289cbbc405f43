import { z } from 'zod';
import { ApiKeyAuth, errorResponses, registry } from '../http/openapi-registry';
import { TAGS } from '../http/openapi-operation';
import { ChargeResponse } from '../charges/schemas';
import { CheckoutLineItem } from '../checkouts/schemas';
import { EVENT_TYPES } from '../domain/event-catalog';

/** Every list answers at most this many rows per page. */
export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;

const id = z.string().min(1).max(64);

/** Cursor pagination, newest first. Unknown query parameters are ignored, as elsewhere. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).openapi({ description: `Page size, 1 to ${MAX_PAGE_SIZE}.`, example: 20 }),
  starting_after: id.optional().openapi({ description: 'The id of the last item of the previous page; the next page starts after it.' }),
});

export const CheckoutListQuery = PageQuery.extend({ customer_id: id.optional() });
export const ChargeListQuery = PageQuery.extend({ checkout_id: id.optional(), customer_id: id.optional() });
// A type outside the catalog is refused, not matched against nothing: an empty list would read as "never sent".
export const EventListQuery = PageQuery.extend({ type: z.enum(EVENT_TYPES).optional(), checkout_id: id.optional() });

const timestamp = z.string().datetime();

export const StoredCheckout = registry.register(
  'StoredCheckout',
  z
    .object({
      id: z.string().openapi({ example: 'chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb' }),
      customer_id: z.string(),
      type: z.enum(['deposit', 'withdrawal']),
      flow: z.string().openapi({ description: 'deposit, preset_deposit, purchase, subscription, balance_withdrawal or preset_withdrawal.' }),
      state: z.enum(['open', 'in_review', 'completed', 'expired', 'blocked']).openapi({ description: 'What the wallet shows; not a contract field.' }),
      blocked_reason: z.string().nullable(),
      line_items: z.array(CheckoutLineItem),
      line_items_total_amount_cents: z.number().int().nullable(),
      balance_amount_cents: z.number().int().nullable(),
      fixed_amount_cents: z.number().int().nullable(),
      currency: z.string(),
      experience: z.enum(['web', 'webview', 'iframe']).nullable(),
      payment_options: z.array(z.string()).nullable(),
      return_url: z.string().nullable(),
      subscription: z.object({ interval: z.string(), interval_count: z.number().int() }).optional(),
      expires_at: timestamp,
      created_at: timestamp,
      updated_at: timestamp,
    })
    .openapi({ description: 'A checkout as recorded (extension). The client secret is never shown again after creation.' }),
);

const ReviewSummary = z.object({ id: z.string(), status: z.enum(['pending', 'approved', 'declined']), amount_cents: z.number().int(), created_at: timestamp, decided_at: timestamp.nullable() });

export const CheckoutDetail = registry.register(
  'CheckoutDetail',
  StoredCheckout.extend({ charges: z.array(ChargeResponse), review: ReviewSummary.nullable() }),
);

export const StoredCustomer = registry.register(
  'StoredCustomer',
  z.object({
    id: z.string().openapi({ example: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    internal_id: z.string().nullable(),
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone_number: z.string().nullable(),
    date_of_birth: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    restricted: z.boolean(),
    restriction_reason: z.string().nullable().openapi({ example: 'KYC_DOES_NOT_MATCH_PROFILE_NAME' }),
  }),
);

export const Refund = registry.register(
  'Refund',
  z.object({
    id: z.string().openapi({ example: 're_2bN8kQ8sLm3Xa7Pc1Rt5VbNw' }),
    charge_id: z.string(),
    amount_cents: z.number().int(),
    source: z.enum(['api', 'dashboard', 'sandbox', 'processor']),
    created_at: timestamp,
  }),
);

export const DeliveryAttempt = registry.register(
  'DeliveryAttempt',
  z.object({
    attempt: z.number().int().openapi({ description: "Numbered on across the event's delivery series: 1 to 5 for its own delivery, 6 and up for the first resend's, and so on." }),
    series: z.number().int().openapi({ description: "The delivery series: 1 is the event's own delivery, each resend or replay starts the next." }),
    url: z.string().nullable(),
    started_at: timestamp,
    duration_ms: z.number().int(),
    http_status: z.number().int().nullable(),
    error: z.string().nullable(),
    response_excerpt: z.string().nullable().openapi({ description: 'The first 300 characters of your answer.' }),
  }),
);

export const DeliverySeries = registry.register(
  'DeliverySeries',
  z.object({
    series: z.number().int().openapi({ description: '1 for the event\'s own delivery; each resend or replay is the next.' }),
    reason: z.enum(['first', 'resend', 'replay']).openapi({ description: "Why the series ran: the event's own delivery, an operator's resend, or a replay by filter." }),
    started_at: timestamp,
    attempts: z.number().int().openapi({ description: 'Attempts made in this series so far (at most 5).' }),
    accepted: z.boolean().openapi({ description: 'Whether an attempt of this series got a 2xx answer.' }),
  }),
);

export const LoggedEvent = registry.register(
  'LoggedEvent',
  z.object({
    id: z.string().openapi({ example: 'ev_7Hq2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    merchant_id: z.string(),
    type: z.string().openapi({ example: 'checkout.succeeded' }),
    checkout_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    customer_id: z.string().nullable(),
    enabled: z.boolean().openapi({ description: 'Whether the merchant had the event enabled when it happened.' }),
    channel: z.enum(['outbox', 'hold']),
    delivery_status: z.enum(['pending', 'delivered', 'failed', 'not_enabled', 'no_webhook_url']),
    created_at: timestamp,
    payload: z.object({ event_id: z.string(), data: z.record(z.string(), z.unknown()), type: z.string() }).openapi({ description: 'The envelope exactly as delivered.' }),
    attempts: z.array(DeliveryAttempt),
    delivery_series: z.array(DeliverySeries).openapi({ description: 'Every delivery series of the event, oldest first. A delivered event stays delivered whatever a later series answers.' }),
  }),
);

/** A page of results, newest first; pass the last id as starting_after to read on. */
function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    results: z.array(item),
    has_more: z.boolean(),
    next_starting_after: z.string().nullable().openapi({ description: 'Pass as starting_after for the next page; null on the last page.' }),
  });
}

const auth = [{ [ApiKeyAuth.name]: [] }];
const ok = (description: string, schema: z.ZodType) => ({ 200: { description, content: { 'application/json': { schema } } }, ...errorResponses() });
const pathId = z.object({ id: z.string() });

const READ_PATHS = [
  { path: '/api/v1/checkouts', operationId: 'listCheckouts', summary: 'List checkouts, newest first', query: CheckoutListQuery, schema: listOf(StoredCheckout) },
  { path: '/api/v1/checkouts/{id}', operationId: 'getCheckout', summary: 'Retrieve a checkout with its charges and review', params: pathId, schema: CheckoutDetail },
  { path: '/api/v1/customers/{id}', operationId: 'getCustomer', summary: 'Retrieve a customer', params: pathId, schema: StoredCustomer },
  { path: '/api/v1/charges', operationId: 'listCharges', summary: 'List charges, newest first', query: ChargeListQuery, schema: listOf(ChargeResponse) },
  { path: '/api/v1/refunds', operationId: 'listRefunds', summary: 'List refunds, newest first', query: PageQuery, schema: listOf(Refund) },
  { path: '/api/v1/refunds/{id}', operationId: 'getRefund', summary: 'Retrieve a refund', params: pathId, schema: Refund },
  { path: '/api/v1/events', operationId: 'listEvents', summary: 'List the events delivered to you (enabled ones), newest first', query: EventListQuery, schema: listOf(LoggedEvent) },
  { path: '/api/v1/events/{id}', operationId: 'getEvent', summary: 'Retrieve an event with its delivery attempts', params: pathId, schema: LoggedEvent },
  { path: '/api/v1/event_log', operationId: 'listEventLog', summary: 'Your event log: every recorded event, enabled or not, with delivery attempts', query: EventListQuery, schema: listOf(LoggedEvent) },
];

for (const p of READ_PATHS) {
  registry.registerPath({
    method: 'get',
    path: p.path,
    operationId: p.operationId,
    summary: p.summary,
    tags: [TAGS.merchantReads],
    security: auth,
    request: { ...(p.query ? { query: p.query } : {}), ...(p.params ? { params: p.params } : {}) },
    responses: ok('OK', p.schema),
  });
}
