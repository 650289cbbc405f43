// The admin API (the dashboard's back end) in the OpenAPI document.
import { z } from 'zod';
import { CHARGE_STATUSES } from '../domain/charge-states';
import { EVENT_TYPES } from '../domain/event-catalog';
import { MerchantSettingsSchema, StripeCredentialsViewSchema } from '../domain/settings';
import { ChargeResponse, REFUND_UNAVAILABLE } from '../charges/schemas';
import { ADMIN_PAGING, ADMIN_TOKEN_THROTTLED, AdminAuth, DashboardSession, adminPaged, operation, page, pathId, TAGS, UNKNOWN_CURSOR } from '../http/openapi-operation';
import { registry } from '../http/openapi-registry';
import { MerchantCreateBody, RollSigningSecretBody, SettingsPatchBody } from '../merchants/schemas';
import { CheckoutDetail, LoggedEvent, StoredCheckout, StoredCustomer } from '../readback/schemas';
import { AdminSearchQuery, DEFAULT_ADMIN_LIST_LIMIT, DEFAULT_ADMIN_RESULTS, EventReplayBody, MAX_ADMIN_LIST_LIMIT, MAX_ADMIN_RESULTS, MerchantListQuery, RestrictedCustomersQuery } from './schemas';

const security = [{ [AdminAuth.name]: [] }, { [DashboardSession.name]: [] }];
const errors = { 401: 'Missing or wrong admin token (or dashboard session / CSRF header).', 429: ADMIN_TOKEN_THROTTLED, 404: 'No such record.' };
const tag = TAGS.admin;
const timestamp = z.string().datetime();
const workflowLink = {
  workflow_url: z.string().nullable(),
  workflow: z
    .object({ id: z.string(), kind: z.enum(['checkout', 'expiry']), status: z.string(), url: z.string() })
    .nullable()
    .openapi({
      description:
        "The checkout's workflow in Temporal: its own (`checkout`, id = the checkout id) once an attempt started it, else its expiry workflow (`expiry`, `<checkout id>:expiry`); " +
        'null when Temporal keeps neither. `status` is Temporal\'s, in lower case (running, completed, ...), or unknown while Temporal cannot be asked.',
    }),
};
const evidence = z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The inputs the decision was made on: KYC record, geo check, rule and thresholds.' });

// clone(): the settings schema may predate the zod OpenAPI extension (its module need not load the registry first).
const Settings = registry.register(
  'MerchantSettings',
  MerchantSettingsSchema.extend({
    stripe: StripeCredentialsViewSchema.optional().openapi({ description: 'Present once Stripe credentials were given: the secret key\'s last four and whether the webhook endpoint secret is set, never the secrets.' }),
  }),
);
const Merchant = registry.register('Merchant', z.object({ id: z.string(), name: z.string(), environment: z.enum(['sandbox', 'production']), settings: Settings, created_at: timestamp }));
const Credentials = registry.register(
  'IssuedCredentials',
  z.object({ api_key: z.string(), client_secret: z.string(), key_prefix: z.string().optional(), webhook_signing_secret: z.string().optional() }).openapi({ description: 'Shown once; only hashes (or the sealed signing secret) are stored.' }),
);
const OnboardedMerchant = registry.register('OnboardedMerchant', Merchant.extend({ api_key: z.string(), key_prefix: z.string(), client_secret: z.string(), webhook_signing_secret: z.string() }));
const ApiKey = z.object({ key_prefix: z.string(), created_at: timestamp, revoked_at: timestamp.nullable() });
export const Review = registry.register(
  'AdminReview',
  z.object({
    id: z.string().openapi({ example: 'cpilr_5Hq2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    checkout_id: z.string(),
    merchant_id: z.string(),
    customer_id: z.string(),
    amount_cents: z.number().int(),
    status: z.enum(['pending', 'approved', 'declined']),
    created_at: timestamp,
    decided_at: timestamp.nullable(),
    decided_by: z.string().nullable(),
    customer: z.object({ id: z.string(), email: z.string().nullable(), first_name: z.string().nullable(), last_name: z.string().nullable(), restriction_reason: z.string().nullable() }).nullable(),
    payment_method: z.object({ id: z.string(), payment_type: z.string(), details: z.record(z.string(), z.unknown()) }).nullable(),
    evidence,
  }),
);
export const TimelineEntry = registry.register(
  'TimelineEntry',
  z.object({
    at: timestamp,
    kind: z.enum(['checkout.created', 'charge.created', 'charge.status', 'hold', 'review.created', 'review.decided', 'geo_check', 'checkout.blocked', 'event', 'webhook.attempt', 'refund']),
    summary: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
);
const listErrors = { ...errors, 404: UNKNOWN_CURSOR };
/** Records name their merchant and customer for the people reading them; the ids stay beside the names. */
const merchantName = z.string().nullable().openapi({ description: "The merchant's name (merchant_id stays the id).", example: 'Acme Games' });
const CustomerBrief = z.object({ id: z.string(), email: z.string().nullable(), first_name: z.string().nullable(), last_name: z.string().nullable() }).nullable().openapi({ description: 'The customer by name and email.' });
const searchPaged = (query: z.ZodObject) => adminPaged(query, MAX_ADMIN_RESULTS, DEFAULT_ADMIN_RESULTS);
export const listPaged = (query: z.ZodObject) => adminPaged(query, MAX_ADMIN_LIST_LIMIT, DEFAULT_ADMIN_LIST_LIMIT);
const reviewParams = pathId('cpilr_5Hq2kQ8sLm3Xa7Pc1Rt5VbNw');
const merchantParams = pathId('mer_2bN8kQ8sLm3Xa7Pc1Rt5VbNw');

operation({ method: 'post', path: '/admin/v1/merchants', id: 'adminCreateMerchant', tag, security, summary: 'Onboard a merchant (secrets shown once)', body: MerchantCreateBody, responses: { 201: ['The merchant with its credentials', OnboardedMerchant] }, errors });
operation({ method: 'get', path: '/admin/v1/merchants', id: 'adminListMerchants', tag, security, summary: 'List merchants, newest first; q finds them by a name or id fragment', description: ADMIN_PAGING, query: searchPaged(MerchantListQuery), responses: { 200: ['Merchants', page(Merchant)] }, errors: listErrors });
operation({
  method: 'get', path: '/admin/v1/merchants/{id}', id: 'adminGetMerchant', tag, security, summary: 'A merchant and its settings, no secrets', params: merchantParams,
  responses: { 200: ['The merchant, with until when a rolled signing secret still signs', Merchant.extend({ previous_webhook_secret_expires_at: timestamp.nullable() })] }, errors,
});
operation({ method: 'patch', path: '/admin/v1/merchants/{id}/settings', id: 'adminUpdateSettings', tag, security, summary: 'Change any subset of the settings', params: merchantParams, body: SettingsPatchBody, responses: { 200: ['The full settings', Settings] }, errors });
operation({
  method: 'post', path: '/admin/v1/merchants/{id}/webhook_secret/roll', id: 'adminRollSigningSecret', tag, security,
  summary: 'Roll the wss_ signing secret (shown once); during the overlap deliveries carry a v1 signature for each secret',
  params: merchantParams, body: RollSigningSecretBody,
  responses: { 201: ['The new signing secret', z.object({ webhook_signing_secret: z.string(), previous_webhook_secret_expires_at: z.string().nullable() }).passthrough()] }, errors,
});
operation({ method: 'get', path: '/admin/v1/merchants/{id}/api_keys', id: 'adminListApiKeys', tag, security, summary: "A merchant's API keys (prefixes only), newest first", params: merchantParams, description: ADMIN_PAGING, query: searchPaged(MerchantListQuery), responses: { 200: ['A page of keys; starting_after takes a key_prefix', page(ApiKey)] }, errors: listErrors });
operation({ method: 'post', path: '/admin/v1/merchants/{id}/api_keys', id: 'adminIssueApiKey', tag, security, summary: 'Issue a new API key and client secret (shown once)', params: merchantParams, responses: { 201: ['The new credentials', Credentials] }, errors });
operation({
  method: 'delete', path: '/admin/v1/merchants/{id}/api_keys/{keyPrefix}', id: 'adminRevokeApiKey', tag, security, summary: 'Revoke an API key by its prefix',
  description: "A prefix that names no active key of this merchant (unknown, revoked, or another merchant's) is 404, as on the merchant dashboard.",
  params: z.object({ id: z.string(), keyPrefix: z.string().openapi({ description: 'The first 12 characters of the key.', example: 'key_Ab3dE5gH' }) }),
  responses: { 200: ['Revoked', z.object({ key_prefix: z.string(), revoked: z.literal(true) })] }, errors,
});
operation({
  method: 'get', path: '/admin/v1/reviews', id: 'adminListReviews', tag, security, summary: 'The review queue, oldest first (or newest first), with customer, payment method and evidence',
  description: `${ADMIN_PAGING} The status filter does not end a walk: a review decided after its page was read still leads to the next page.`,
  query: listPaged(z.object({
    status: z.enum(['pending', 'approved', 'declined']).optional(),
    merchant_id: z.string().optional(),
    min_amount_cents: z.number().int().min(0).optional().openapi({ description: 'Only reviews of at least this amount, in cents.' }),
    max_amount_cents: z.number().int().min(0).optional().openapi({ description: 'Only reviews of at most this amount, in cents.' }),
    min_age_minutes: z.number().int().min(0).max(525_600).optional().openapi({ description: 'Only reviews that have waited at least this many minutes.' }),
    order: z.enum(['oldest', 'newest']).optional().openapi({ description: '`oldest` (default, the queue) or `newest` (recent decisions first).' }),
  })),
  responses: {
    200: ['Reviews, each with its merchant\'s name, and how many reviews of each status the merchant, amount and age filters select', page(Review.extend({ merchant_name: merchantName })).extend({
      counts: z.object({
        pending: z.number().int().openapi({ description: 'Reviews awaiting a decision.' }),
        approved: z.number().int().openapi({ description: 'Reviews approved.' }),
        declined: z.number().int().openapi({ description: 'Reviews declined.' }),
      }).openapi({ description: 'Reviews of each status under the same merchant_id, amount and age filters (the status filter aside).' }),
    })],
  },
  errors: { ...listErrors, 422: 'Invalid query, or min_amount_cents above max_amount_cents.' },
});
for (const decision of ['approve', 'decline'] as const) {
  operation({
    method: 'post', path: `/admin/v1/reviews/{id}/${decision}`, id: `adminReview${decision === 'approve' ? 'Approve' : 'Decline'}`, tag, security,
    summary: decision === 'approve' ? 'Approve: the checkout creates the charge and places the hold' : 'Decline: no charge is ever created; the checkout is blocked',
    params: reviewParams, responses: { 200: ['The decided review', Review.omit({ customer: true, payment_method: true, evidence: true })] }, errors: { ...errors, 422: decision === 'approve' ? 'Already decided, or the approval refused (`Approval refused.`: the customer is restricted, fails the KYC check, the method is no longer offered or no longer a permitted destination, or the card expired; the review stays pending).' : 'Already decided.', 503: 'Temporal briefly refused the decision: send it again after Retry-After seconds.' },
  });
}
operation({ method: 'post', path: '/admin/v1/customers/{id}/unrestrict', id: 'adminUnrestrictCustomer', tag, security, summary: "Lift a customer's restriction", params: pathId('cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 200: ['The customer', z.object({ id: z.string(), restricted: z.boolean(), restriction_reason: z.string().nullable() })] }, errors });
operation({
  method: 'get', path: '/admin/v1/customers/restricted', id: 'adminListRestrictedCustomers', tag, security, summary: 'Restricted customers with the reason and evidence, newest customer first', description: ADMIN_PAGING, query: searchPaged(RestrictedCustomersQuery),
  responses: { 200: ['Customers', page(StoredCustomer.extend({ merchant_id: z.string(), merchant_name: merchantName, restricted_at: timestamp.nullable(), restriction_evidence: evidence }))] }, errors: listErrors,
});
operation({ method: 'post', path: '/admin/v1/charges/{id}/refund', id: 'adminRefundCharge', tag, security, summary: 'The dashboard refund (same rules and event as the public one)', description: "A charge that does not exist is 404, as on the merchant dashboard; the refund rules' refusals are the public refund's 422 bodies with a hint.", params: pathId('ch_3kQ8sLm3Xa7Pc1Rt5VbNwYz'), responses: { 200: ['The refunded charge', ChargeResponse] }, errors: { ...errors, 503: REFUND_UNAVAILABLE } });
operation({ method: 'get', path: '/admin/v1/charges', id: 'adminSearchCharges', tag, security, summary: 'Search charges by id, checkout, customer, merchant or email fragment, newest first', description: ADMIN_PAGING, query: searchPaged(AdminSearchQuery), responses: { 200: ['Charges', page(ChargeResponse.extend({ merchant_id: z.string(), merchant_name: merchantName }))] }, errors: listErrors });
operation({ method: 'get', path: '/admin/v1/checkouts', id: 'adminSearchCheckouts', tag, security, summary: 'Search checkouts by id, charge, customer, merchant or email fragment, newest first', description: ADMIN_PAGING, query: searchPaged(AdminSearchQuery), responses: { 200: ['Checkouts', page(StoredCheckout.extend({ merchant_id: z.string(), merchant_name: merchantName, customer: CustomerBrief }))] }, errors: listErrors });
operation({
  method: 'get', path: '/admin/v1/checkouts/{id}', id: 'adminGetCheckout', tag, security, summary: 'A checkout with charges, review, block evidence and its Temporal Web UI link', params: pathId('chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb'),
  responses: { 200: ['The checkout', CheckoutDetail.extend({ merchant_id: z.string(), merchant_name: merchantName, customer: CustomerBrief, blocked_evidence: evidence, ...workflowLink })] }, errors,
});
operation({
  method: 'get', path: '/admin/v1/checkouts/{id}/timeline', id: 'adminCheckoutTimeline', tag, security,
  summary: 'Everything that happened to a checkout, in order',
  description: 'Creation, charges and each status change, the hold handshake with the merchant\'s answer and latency, review and decision, geo checks, the block, refunds and every webhook attempt (status, latency, response excerpt).',
  params: pathId('chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb'), responses: { 200: ['The timeline', z.object({ checkout_id: z.string(), ...workflowLink, entries: z.array(TimelineEntry) })] }, errors,
});
/** An event as the operator's log shows it: its merchant by name beside the id. */
const OperatorLoggedEvent = LoggedEvent.extend({ merchant_name: z.string().nullable().openapi({ description: "The event's merchant by name (null if it has none).", example: 'Acme Games' }) }).openapi('OperatorLoggedEvent');
operation({
  method: 'get', path: '/admin/v1/events', id: 'adminListEvents', tag, security, summary: 'The event log, newest first, with delivery attempts', description: ADMIN_PAGING,
  query: listPaged(z.object({ merchant_id: z.string().optional(), type: z.enum(EVENT_TYPES).optional(), checkout_id: z.string().optional(), charge_id: z.string().optional() })),
  responses: { 200: ['Events', page(OperatorLoggedEvent)] }, errors: listErrors,
});
operation({ method: 'get', path: '/admin/v1/events/{id}', id: 'adminGetEvent', tag, security, summary: 'One event with its delivery attempts', params: pathId('ev_7Hq2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 200: ['The event', OperatorLoggedEvent] }, errors });
operation({ method: 'post', path: '/admin/v1/events/{id}/resend', id: 'adminResendEvent', tag, security, summary: 'Deliver a recorded event again as a new delivery series (same event_id, fresh signature); a delivered event stays delivered', params: pathId('ev_7Hq2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 202: ['Queued', z.object({ id: z.string(), resent: z.literal(true), series: z.number().int().openapi({ description: 'The new delivery series (2 and up).' }) })] }, errors });
operation({
  method: 'post', path: '/admin/v1/events/replay', id: 'adminReplayEvents', tag, security, summary: 'Replay delivered-or-failed events by filter; dry_run only counts',
  body: EventReplayBody,
  responses: { 200: ['Dry run: what would be replayed', z.object({ dry_run: z.boolean(), count: z.number().int(), event_ids: z.array(z.string()) })], 202: ['Replayed', z.object({ dry_run: z.boolean(), count: z.number().int(), event_ids: z.array(z.string()) })] },
  errors,
});
operation({
  method: 'get', path: '/admin/v1/settings_catalog', id: 'adminSettingsCatalog', tag, security, summary: 'The choices the settings offer (event groups, flows, methods)',
  responses: { 200: ['The catalog', z.object({ always_on_events: z.array(z.string()), optional_event_groups: z.array(z.object({ name: z.string(), types: z.array(z.string()) })), checkout_flows: z.array(z.string()), checkout_types: z.array(z.string()), payment_methods: z.array(z.string()), card_processors: z.array(z.string()), customer_fields: z.array(z.string()) })] },
  errors,
});
operation({
  method: 'post', path: '/admin/v1/sandbox/charges/{id}/transition', id: 'adminSandboxTransition', tag, security, summary: 'Sandbox: move a charge along an edge of the state table, as a processor would',
  params: pathId('ch_3kQ8sLm3Xa7Pc1Rt5VbNwYz'),
  body: z.object({ to: z.enum(CHARGE_STATUSES), failure_code: z.string().optional(), failure_message: z.string().optional() }).strict(),
  responses: { 200: ['The moved charge', ChargeResponse] }, errors: { ...errors, 422: 'The state table lists no such edge (hint names the allowed moves).' },
});
