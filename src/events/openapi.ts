// Every webhook payload in the OpenAPI 3.1 `webhooks` section: the envelope and each event's `data`.
import { z } from 'zod';
import { CHARGE_STATUSES } from '../domain/charge-states';
import { ALWAYS_ON_EVENT_TYPES, OPTIONAL_EVENT_TYPES } from '../domain/event-types';
import type { EventType } from '../domain/event-catalog';
import { KycRecordResponse } from '../kyc/schemas';
import { registry } from '../http/openapi-registry';
import { SubscriptionObject } from '../checkouts/schemas';

const subscription = SubscriptionObject.nullable().openapi({ description: 'Always present; null for a checkout that is not a subscription.' });
const checkoutType = z.enum(['deposit', 'withdrawal']).openapi({ description: 'The checkout type (data.type).' });
const WebhookLineItem = registry.register(
  'WebhookLineItem',
  z.object({ product_id: z.string(), quantity: z.number().int(), total_amount_cents: z.number().int(), product_name: z.string(), product_url: z.string().nullable(), product_price_cents: z.number().int(), sku: z.string().nullable() }),
);
const WebhookCustomer = registry.register('WebhookCustomer', z.object({ id: z.string(), internal_id: z.string().nullable(), email: z.string().nullable(), first_name: z.string().nullable(), last_name: z.string().nullable() }));

const ChargeEventData = registry.register(
  'ChargeEventData',
  z.object({
    id: z.string().openapi({ description: 'The checkout id.', example: 'chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb' }),
    type: checkoutType,
    customer: WebhookCustomer,
    charge: z.object({
      id: z.string(),
      amount_cents: z.number().int(),
      transaction_type: z.enum(['credit', 'debit']),
      status: z.enum(CHARGE_STATUSES),
      from_status: z.enum(CHARGE_STATUSES),
      failure_code: z.string().nullable(),
      failure_message: z.string().nullable(),
    }),
    line_items: z.array(WebhookLineItem),
    subscription,
  }),
);
/** checkout.hold: the charge event, plus where the money would go (holdDestination), for the merchant's answer. */
const HoldEventData = ChargeEventData.extend({
  charge: ChargeEventData.shape.charge.extend({
    payment_method: z
      .object({
        fingerprint: z.string().openapi({ description: "The instrument's fingerprint, as GET /api/v1/charges/{id} shows it; stable per instrument." }),
        payment_type: z.string(),
        last4: z.string().nullable().openapi({ description: 'Last four of the card, account or wallet address; null when the instrument has none.' }),
      })
      .openapi({ description: 'The destination of the withdrawal, so the hold answer can refuse one the merchant does not know.' }),
  }),
});
const ExpiredEventData = registry.register(
  'ExpiredEventData',
  z.object({ id: z.string(), expired_at: z.string().datetime(), type: checkoutType, customer: z.object({ id: z.string() }), subscription }),
);
const TerminallyFailedEventData = registry.register(
  'TerminallyFailedEventData',
  z.object({
    id: z.string(),
    type: checkoutType,
    customer: z.object({ id: z.string() }),
    reason: z.string().openapi({ description: 'Why the checkout was blocked.', example: 'kyc_not_verified' }),
    line_items: z.array(WebhookLineItem),
    subscription,
  }),
);
const ReviewEventData = registry.register(
  'ReviewEventData',
  z.object({
    id: z.string(),
    type: z.literal('withdrawal'),
    customer: z.object({ id: z.string() }),
    review: z.object({ id: z.string(), status: z.enum(['pending', 'approved', 'declined']), amount_cents: z.number().int() }),
    expires_at: z.string().datetime().nullable().openapi({ description: "The checkout's deadline after this event: null while the review is pending (expiry is paused) or declined; on approval, the decision time plus the time that was left." }),
    subscription,
  }),
);
const SubscriptionEventData = registry.register(
  'SubscriptionEventData',
  z.object({
    id: z.string().openapi({ description: 'The checkout that created the subscription.' }),
    type: z.literal('deposit'),
    customer: z.object({ id: z.string() }),
    subscription: SubscriptionObject,
    charge_id: z.string().nullable().openapi({ description: 'The renewal charge the event is about; null when none (a cancellation).' }),
  }),
);
const CustomerEventData = registry.register(
  'CustomerEventData',
  z.object({
    customer: WebhookCustomer,
    kyc: KycRecordResponse.optional().openapi({ description: 'customer.kyc.created: the new record.' }),
    reason_code: z.string().optional().openapi({ description: 'customer.restricted / unrestricted: the restriction.', example: 'KYC_DOES_NOT_MATCH_PROFILE_NAME' }),
    restricted_at: z.string().datetime().optional(),
    unrestricted_at: z.string().datetime().optional(),
  }),
);

const DATA_BY_TYPE: Record<EventType, z.ZodType> = {
  'checkout.succeeded': ChargeEventData,
  'checkout.hold': HoldEventData,
  'checkout.release_hold': ChargeEventData,
  'checkout.returned': ChargeEventData,
  'checkout.pending': ChargeEventData,
  'checkout.failed': ChargeEventData,
  'checkout.voided': ChargeEventData,
  'checkout.refunded': ChargeEventData,
  'checkout.cancelled': ChargeEventData,
  'checkout.expired': ExpiredEventData,
  'checkout.terminally_failed': TerminallyFailedEventData,
  'checkout.review.created': ReviewEventData,
  'checkout.review.approved': ReviewEventData,
  'checkout.review.declined': ReviewEventData,
  'customer.kyc.created': CustomerEventData,
  'customer.restricted': CustomerEventData,
  'customer.unrestricted': CustomerEventData,
  'subscription.created': SubscriptionEventData,
  'subscription.renewed': SubscriptionEventData,
  'subscription.payment_failed': SubscriptionEventData,
  'subscription.updated': SubscriptionEventData,
  'subscription.cancelled': SubscriptionEventData,
};

const signature = z.string().openapi({ description: 't=<unix timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the wss_ signing secret.', example: 't=1795345846,v1=5f8d...' });

for (const type of [...ALWAYS_ON_EVENT_TYPES, ...OPTIONAL_EVENT_TYPES]) {
  const alwaysOn = (ALWAYS_ON_EVENT_TYPES as readonly string[]).includes(type);
  const hold = type === 'checkout.hold';
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: `webhook_${type.replace(/\./g, '_')}`,
    tags: ['Webhooks'],
    summary: `${type}${alwaysOn ? ' (always sent)' : ' (off by default; enable it in the merchant settings)'}`,
    description: hold
      ? 'Synchronous, 10 s timeout, never retried: a 2xx answer confirms the customer has the funds; anything else fails the charge.'
      : 'Delivered to the webhook_url with up to 5 attempts (10 s each); every attempt is signed afresh. Keys in the order event_id, data, type.',
    request: {
      headers: z.object({ 'SERVICE-WEBHOOK-SIGNATURE': signature, SERVICE_SIGNATURE: signature.openapi({ description: 'Legacy alias carrying the same value.' }) }),
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.object({
              event_id: z.string().openapi({ description: 'Stable across every attempt of the event.', example: 'ev_7Hq2kQ8sLm3Xa7Pc1Rt5VbNw' }),
              data: DATA_BY_TYPE[type],
              type: z.literal(type),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: hold ? 'Any 2xx: the funds are confirmed.' : 'Any 2xx: delivered.' },
      500: { description: hold ? 'Anything else (or no answer in 10 s): insufficient funds.' : 'Anything else (or no answer in 10 s): retried.' },
    },
  });
}
