// The wallet API (the hosted checkout page's back end) in the OpenAPI document.
import { z } from 'zod';
import { ChargeResponse } from '../charges/schemas';
import { CheckoutLineItem } from '../checkouts/schemas';
import { DevicePingResponse } from '../device-pings/schemas';
import { operation, pathId, TAGS, WalletAuth } from '../http/openapi-operation';
import { registry } from '../http/openapi-registry';
import { AttemptBody } from './attempt-schemas';

const security = [{ [WalletAuth.name]: [] }];
const tag = TAGS.wallet;
const params = pathId('chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb');

export const WalletCheckout = registry.register(
  'WalletCheckout',
  z.object({
    id: z.string(),
    type: z.enum(['deposit', 'withdrawal']),
    flow: z.string(),
    state: z.enum(['open', 'in_review', 'completed', 'expired', 'blocked']),
    currency: z.string(),
    merchant: z.object({ name: z.string() }),
    fixed_amount_cents: z.number().int().nullable(),
    balance_amount_cents: z.number().int().nullable(),
    line_items: z.array(CheckoutLineItem.extend({ kind: z.enum(['product', 'shipping', 'tax']) })),
    line_items_total_amount_cents: z.number().int().nullable(),
    subscription: z.object({ interval: z.string(), interval_count: z.number().int() }).nullable(),
    amount_due_cents: z.number().int().nullable(),
    payment_options: z.array(z.string()),
    saved_payment_methods: z.array(z.record(z.string(), z.unknown())),
    preselected_method: z.string().nullable(),
    experience: z.enum(['web', 'webview', 'iframe']).nullable(),
    return_url: z.string().nullable(),
    expires_at: z.string().datetime().nullable(),
    geo_required: z.boolean(),
    review: z.object({ id: z.string(), status: z.string() }).nullable(),
    // A finished checkout's link outlives it: its charges show the customer as {id} only (read.ts).
    charges: z.array(
      ChargeResponse.extend({
        customer: ChargeResponse.shape.customer
          .partial({ internal_id: true, email: true, first_name: true, last_name: true, phone_number: true })
          .openapi({ description: 'Only `id` once the checkout is completed, expired or blocked.' }),
      }),
    ),
  }),
);
/** The attempt's charge: the API's charge, and for a pending one the customer's next step. */
const WalletAttemptCharge = ChargeResponse.extend({
  next_action: z
    .object({ type: z.literal('redirect_to_url'), url: z.string().url() })
    .optional()
    .openapi({
      description:
        'Only on a `pending` card charge whose processor asks the customer to authenticate (3D Secure): the page sends the customer to `url`, which brings them back to the checkout page when done. The charge settles by the processor\'s webhook. Never on the merchant API\'s charge.',
    }),
});
// clone(): the attempt schema's module does not load the zod OpenAPI extension first.
const WalletAttempt = registry.register('WalletAttempt', AttemptBody.clone());

operation({ method: 'get', path: '/wallet/v1/checkouts/{id}', id: 'walletGetCheckout', tag, security, summary: 'What the hosted page shows', params, responses: { 200: ['The checkout as the wallet shows it', WalletCheckout] }, errors: {} });
operation({
  method: 'post', path: '/wallet/v1/checkouts/{id}/attempts', id: 'walletAttempt', tag, security, summary: 'One payment attempt (a new charge, or a review for a withdrawal)',
  params, body: WalletAttempt,
  responses: {
    201: ['The charge', z.object({ charge: WalletAttemptCharge })],
    202: ['The withdrawal paused for review', z.object({ review: z.object({ id: z.string(), status: z.string(), amount_cents: z.number().int(), created_at: z.string().datetime() }) })],
  },
  errors: {
    400: 'Body is not JSON.',
    429: 'A velocity limit (attempts per card, per customer or per client address in the hour) was reached: nothing was charged; try again after Retry-After seconds.',
    503: 'Temporal briefly refused the attempt (nothing was charged for it): send it again after Retry-After seconds.',
  },
});
operation({
  method: 'post', path: '/wallet/v1/checkouts/{id}/device_pings', id: 'walletDevicePing', tag, security, summary: "The customer device's location, from the hosted page",
  params, body: z.object({ latitude: z.number(), longitude: z.number() }).strict(),
  responses: { 201: ['Recorded', DevicePingResponse] },
  errors: { 404: 'Device pings are disabled for this account.' },
});
