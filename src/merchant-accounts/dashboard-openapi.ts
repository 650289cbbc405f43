// The merchant dashboard's data routes (operator spec, section 7) in the OpenAPI document.
import { z } from 'zod';
import { Review, TimelineEntry } from '../admin/openapi';
import { ChargeResponse, REFUND_UNAVAILABLE } from '../charges/schemas';
import { ChargeCustomer } from '../customers/schemas';
import { MerchantSessionAuth, operation, page, pathId, TAGS } from '../http/openapi-operation';
import { RollSigningSecretBody } from '../merchants/schemas';
import { CheckoutDetail, EventListQuery, LoggedEvent, PageQuery, StoredCheckout, StoredCustomer } from '../readback/schemas';
import { HOME_CHART_DAYS, HOME_FAILED_DELIVERIES, HOME_PERIODS } from './home';
import { PAYMENT_CSV_COLUMNS } from './payment-list';
import { Payment, PaymentFilterQuery, PaymentListQuery } from './payment-schemas';
import { AuthenticatorProofBody, CustomerSearchQuery, EnabledEventsBody, PaymentSearchQuery, EnabledEventsCatalog, ReviewQueueQuery, WebhookSettings, WebhookUrlBody } from '../identity';

const tag = TAGS.merchantDashboard;
const security = [{ [MerchantSessionAuth.name]: [] }];
const timestamp = z.string().datetime();
const reading = { 401: 'No session, or a revoked one (signed out, person removed, password reset).' };
const developers = {
  401: 'No session, a revoked one, or a change without X-CSRF-Token.',
  403: 'Beyond the role: only owners and developers change the Developers section.',
  422: 'Invalid input.',
};
const Volume = z.object({ count: z.number().int(), amount_cents: z.number().int() });
operation({
  method: 'get', path: '/merchant/v1/home', id: 'merchantHome', tag, security, summary: "Gross, refunds and net for today and the last 7 and 30 days, the volume chart, open reviews and the latest failed webhook deliveries",
  description: `Deposits and withdrawals apart: the charges created today (UTC) that are succeeded, counted and summed in cents. failed_deliveries: the ${HOME_FAILED_DELIVERIES} newest events whose delivery failed (every attempt of its series refused), each with its last attempt.`,
  responses: {
    200: ['The home page', z.object({
      day: z.string().openapi({ description: 'Today (UTC), YYYY-MM-DD.', example: '2026-11-27' }),
      currency: z.string().openapi({ example: 'USD' }),
      deposits: Volume.openapi({ description: "Today's succeeded deposits (credit charges): how many, and their sum in cents." }),
      withdrawals: Volume.openapi({ description: "Today's succeeded withdrawals (debit charges): how many, and their sum in cents." }),
      periods: z.array(z.object({
        period: z.enum(HOME_PERIODS.map((p) => p.period) as [string, ...string[]]).openapi({ description: 'Which period: today, or the last 7 or 30 days.' }),
        from: z.string().openapi({ description: 'The first day of the period (UTC), YYYY-MM-DD; it ends today.' }),
        gross_cents: z.number().int().openapi({ description: 'Deposits taken (succeeded credit charges, refunded ones included) created in the period.' }),
        refunds_cents: z.number().int().openapi({ description: 'Refunds that went through in the period.' }),
        net_cents: z.number().int().openapi({ description: 'gross_cents minus refunds_cents.' }),
        payments: z.number().int().openapi({ description: 'How many deposits gross_cents sums.' }), refunds: z.number().int().openapi({ description: 'How many refunds refunds_cents sums.' }),
      })).openapi({ description: `${HOME_PERIODS.map((p) => p.period).join(', ')}: whole UTC days ending today.` }),
      chart: z.object({
        days: z.array(z.string()).openapi({ description: 'The UTC days, YYYY-MM-DD, oldest first.' }),
        gross_cents: z.array(z.number().int()).openapi({ description: "Each day's deposits taken, in cents." }),
        refunds_cents: z.array(z.number().int()).openapi({ description: "Each day's refunds, in cents." }),
      })
        .openapi({ description: `The last ${HOME_CHART_DAYS} UTC days, today the last: gross and refunds of each, by index.` }),
      open_reviews: z.object({ count: z.number().int(), amount_cents: z.number().int(), oldest_at: timestamp.nullable().openapi({ description: 'When the oldest open review was opened; null without one.' }) }).openapi({ description: 'Withdrawals awaiting a decision: how many, their sum, and when the oldest was opened.' }),
      failed_deliveries: z.array(z.object({
        event_id: z.string(), type: z.string(), checkout_id: z.string().nullable(), created_at: timestamp, attempts: z.number().int(),
        last_attempt: z.object({
          at: timestamp, http_status: z.number().int().nullable(), error: z.string().nullable(),
          response_excerpt: z.string().nullable().openapi({ description: "The start of the receiver's answer." }), url: z.string().nullable(),
        }).nullable().openapi({ description: "The last delivery attempt: when, the HTTP status (null without an answer), the error, the receiver's answer and the URL." }),
      })).openapi({ description: `The ${HOME_FAILED_DELIVERIES} newest events whose delivery failed, newest first.` }),
    })],
  },
  errors: reading,
});

const ApiKey = z.object({ key_prefix: z.string(), created_at: timestamp, revoked_at: timestamp.nullable() });
const eventParams = pathId('ev_7Hq2kQ8sLm3Xa7Pc1Rt5VbNw');

operation({ method: 'get', path: '/merchant/v1/developers/api_keys', id: 'merchantListApiKeys', tag, security, summary: "The account's API keys (prefixes only), newest first", query: PageQuery, responses: { 200: ['A page of keys; starting_after takes a key_prefix', page(ApiKey)] }, errors: { ...reading, 404: 'starting_after is not a key prefix of this account.' } });
operation({
  method: 'post', path: '/merchant/v1/developers/api_keys', id: 'merchantIssueApiKey', tag, security, summary: 'Issue an API key and client secret (shown once; only hashes are stored)',
  responses: { 201: ['The new credentials', z.object({ api_key: z.string(), client_secret: z.string(), key_prefix: z.string() })] }, errors: developers,
});
operation({
  method: 'delete', path: '/merchant/v1/developers/api_keys/{keyPrefix}', id: 'merchantRevokeApiKey', tag, security, summary: 'Revoke an API key by its prefix',
  params: z.object({ keyPrefix: z.string().openapi({ description: 'The first 12 characters of the key.', example: 'key_Ab3dE5gH' }) }),
  responses: { 200: ['Revoked', z.object({ key_prefix: z.string(), revoked: z.literal(true) })] }, errors: { ...developers, 404: 'No active key of this account has the prefix.' },
});
operation({ method: 'get', path: '/merchant/v1/developers/webhook', id: 'merchantGetWebhook', tag, security, summary: 'The webhook URL, and until when a rolled signing secret still signs', responses: { 200: ['The webhook settings', WebhookSettings] }, errors: reading });
operation({ method: 'put', path: '/merchant/v1/developers/webhook', id: 'merchantSetWebhook', tag, security, summary: 'Set the webhook URL (null: no deliveries)', body: WebhookUrlBody, responses: { 200: ['The webhook settings', WebhookSettings] }, errors: developers });
operation({
  method: 'post', path: '/merchant/v1/developers/webhook/signing_secret/roll', id: 'merchantRollSigningSecret', tag, security,
  summary: 'Roll the wss_ signing secret (shown once); the previous one signs beside it until previous_webhook_secret_expires_at',
  description: 'With an Idempotency-Key header, a retried roll answers the first roll\'s secret and rolls once.',
  idempotent: true,
  body: RollSigningSecretBody,
  responses: { 201: ['The new signing secret', z.object({ webhook_signing_secret: z.string(), previous_webhook_secret_expires_at: timestamp.nullable() })] },
  errors: { ...developers, 422: 'Invalid input, or rolled again during the overlap without force.' },
});
operation({
  method: 'post', path: '/merchant/v1/developers/webhook/signing_secret/reveal', id: 'merchantRevealSigningSecret', tag, security,
  summary: 'Show the current wss_ signing secret against a fresh authenticator code of the signed-in person; audited',
  description: 'Answered with Cache-Control: no-store. Wrong codes count as failed sign-ins of the person and the address, as every authenticator proof does.',
  body: AuthenticatorProofBody,
  responses: { 200: ['The signing secret that signs deliveries now', z.object({ webhook_signing_secret: z.string().openapi({ example: 'wss_3f9c2a7b' }), previous_webhook_secret_expires_at: timestamp.nullable().openapi({ description: 'Until when the secret before it still signs beside it (after a roll); null when it does not.' }) })] },
  errors: { ...developers, 422: 'Invalid input, a missing or wrong code, or no authenticator enrolled (enrol one on the Security page).', 429: 'Too many wrong codes for the account or from the address (Retry-After seconds).' },
});
operation({ method: 'get', path: '/merchant/v1/developers/enabled_events', id: 'merchantGetEnabledEvents', tag, security, summary: 'The optional events, grouped as the event catalog, each on or off', responses: { 200: ['The choices', EnabledEventsCatalog] }, errors: reading });
operation({ method: 'put', path: '/merchant/v1/developers/enabled_events', id: 'merchantSetEnabledEvents', tag, security, summary: 'Set which optional events are sent (the whole list)', body: EnabledEventsBody, responses: { 200: ['The choices', EnabledEventsCatalog] }, errors: developers });
operation({
  method: 'get', path: '/merchant/v1/developers/events', id: 'merchantListEvents', tag, security, summary: "The account's event log, sent or not, newest first, with every delivery attempt",
  query: EventListQuery, responses: { 200: ['A page of events', page(LoggedEvent)] }, errors: { ...reading, 404: 'starting_after is not an event of this account.' },
});
operation({ method: 'get', path: '/merchant/v1/developers/events/{id}', id: 'merchantGetEvent', tag, security, summary: 'One event with every delivery attempt', params: eventParams, responses: { 200: ['The event', LoggedEvent] }, errors: { ...reading, 404: 'No such event in this account.' } });
operation({
  method: 'post', path: '/merchant/v1/developers/events/{id}/resend', id: 'merchantResendEvent', tag, security, summary: 'Deliver an event again as a new delivery series (same event_id, fresh signature)', params: eventParams,
  responses: { 202: ['Queued', z.object({ id: z.string(), resent: z.literal(true), series: z.number().int().openapi({ description: 'The new delivery series (2 and up).' }) })] },
  errors: { ...developers, 404: 'No such event in this account.', 422: 'The event was not enabled, is a hold, or there is no webhook_url.' },
});

operation({
  method: 'get', path: '/merchant/v1/reviews', id: 'merchantListReviews', tag, security, summary: "The account's withdrawal reviews, the queue oldest first, with customer, payment method, evidence and decider",
  query: ReviewQueueQuery, responses: { 200: ['A page of reviews', page(Review)] }, errors: { ...reading, 404: 'starting_after is not a review of this account.' },
});
for (const [path, name] of [['approve', 'Approve'], ['decline', 'Decline']] as const) {
  operation({
    method: 'post', path: `/merchant/v1/reviews/{id}/${path}`, id: `merchantReview${name}`, tag, security,
    summary: path === 'approve' ? 'Approve: the checkout creates the charge and places the hold; the person is recorded as decider' : 'Decline: no charge is ever created; the person is recorded as decider',
    params: pathId('cpilr_5Hq2kQ8sLm3Xa7Pc1Rt5VbNw'),
    responses: { 200: ['The decided review', Review.omit({ customer: true, payment_method: true, evidence: true })] },
    errors: {
      401: developers[401], 403: 'Beyond the role: only owners and reviewers decide reviews.', 404: 'No such review in this account.',
      422: path === 'approve' ? 'Already decided, or the approval refused (the review stays pending).' : 'Already decided.',
      503: 'Temporal briefly refused the decision: send it again after Retry-After seconds.',
    },
  });
}

const evidence = z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The inputs the restriction was decided on: KYC record, geo check, rule.' });
operation({
  method: 'get', path: '/merchant/v1/customers', id: 'merchantListCustomers', tag, security, summary: "Search the account's customers, newest first, with their restrictions and evidence",
  query: CustomerSearchQuery,
  responses: { 200: ['A page of customers', page(StoredCustomer.extend({ restricted_at: timestamp.nullable(), restriction_evidence: evidence }))] },
  errors: { ...reading, 404: 'starting_after is not a customer of this account.', 422: 'Invalid query.' },
});
operation({
  method: 'post', path: '/merchant/v1/customers/{id}/unrestrict', id: 'merchantUnrestrictCustomer', tag, security, summary: "Lift a customer's restriction (owners and reviewers); the audit log records the person",
  params: pathId('cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw'),
  responses: { 200: ['The customer', z.object({ id: z.string(), restricted: z.boolean(), restriction_reason: z.string().nullable() })] },
  errors: { 401: developers[401], 403: 'Beyond the role: only owners and reviewers lift restrictions.', 404: 'No such customer in this account.', 422: 'The customer is not restricted.' },
});

const badFilter = 'Invalid query: an unknown status or type, a malformed day or amount, or a range that ends before it starts.';
operation({
  method: 'get', path: '/merchant/v1/payments', id: 'merchantListPayments', tag, security, summary: "The account's payments, newest first: one per checkout, with its status, customer, method and line items",
  description: 'A checkout is one payment whatever its charges (a failed attempt then a paid one, a subscription\'s renewals). The status is read from the refunds first, then the charges, then the checkout.',
  query: PaymentListQuery, responses: { 200: ['A page of payments', page(Payment)] }, errors: { ...reading, 404: 'starting_after is not a checkout of this account.', 422: badFilter },
});
operation({
  method: 'get', path: '/merchant/v1/payments.csv', id: 'merchantExportPayments', tag, security, summary: 'Every payment the filters select, as a CSV file (the same filters as the list)',
  description: `A header row, then one row per payment, newest first: ${PAYMENT_CSV_COLUMNS.join(', ')}. Amounts in units of the currency (25.00); a cell that a spreadsheet would read as a formula is escaped.`,
  query: PaymentFilterQuery, responses: { 200: ['The CSV file (Content-Disposition: attachment)'] }, csvResponse: true, errors: { ...reading, 422: badFilter },
});

const checkoutParams = pathId('chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb');
operation({
  method: 'get', path: '/merchant/v1/checkouts', id: 'merchantListCheckouts', tag, security, summary: "Search the account's checkouts, newest first",
  query: PaymentSearchQuery, responses: { 200: ['A page of checkouts, each with its customer', page(StoredCheckout.extend({ customer: ChargeCustomer.nullable() }))] }, errors: { ...reading, 404: 'starting_after is not a checkout of this account.', 422: 'Invalid query.' },
});
operation({
  method: 'get', path: '/merchant/v1/checkouts/{id}', id: 'merchantGetCheckout', tag, security, summary: 'A checkout with its charges, review and block evidence', params: checkoutParams,
  responses: { 200: ['The checkout', CheckoutDetail.extend({ blocked_evidence: evidence })] }, errors: { ...reading, 404: 'No such checkout in this account.' },
});
operation({
  method: 'get', path: '/merchant/v1/checkouts/{id}/timeline', id: 'merchantCheckoutTimeline', tag, security, summary: 'Everything that happened to a checkout, in order', params: checkoutParams,
  responses: { 200: ['The timeline', z.object({ checkout_id: z.string(), entries: z.array(TimelineEntry) })] }, errors: { ...reading, 404: 'No such checkout in this account.' },
});
operation({
  method: 'get', path: '/merchant/v1/charges', id: 'merchantListCharges', tag, security, summary: "Search the account's charges, newest first",
  query: PaymentSearchQuery, responses: { 200: ['A page of charges', page(ChargeResponse)] }, errors: { ...reading, 404: 'starting_after is not a charge of this account.', 422: 'Invalid query.' },
});
operation({
  method: 'post', path: '/merchant/v1/charges/{id}/refund', id: 'merchantRefundCharge', tag, security, summary: 'Refund a charge in full (owners): the same rules and event as the public refund; the audit log records the person',
  params: pathId('ch_3kQ8sLm3Xa7Pc1Rt5VbNwYz'), responses: { 200: ['The refunded charge', ChargeResponse] },
  errors: { 401: developers[401], 403: 'Beyond the role: only owners refund.', 404: 'No such charge in this account.', 422: 'The charge cannot be refunded (the hint says why), or a body was sent.', 503: REFUND_UNAVAILABLE },
});
