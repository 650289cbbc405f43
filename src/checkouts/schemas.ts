import { z } from 'zod';
import { CHECKOUT_TYPES, PAYMENT_METHODS } from '../domain/settings';
import { CANCELLATION_REASONS, SUBSCRIPTION_STATUSES } from '../domain/subscriptions';
import { ApiKeyAuth, errorResponses, EXAMPLE_REQUEST_ID, jsonContent, registry } from '../http/openapi-registry';

/**
 * Limits of checkout creation. The contract fixes the minimum (integers of at least 1) and
 * leaves the maxima to us: one million dollars per amount keeps every sum inside a 32-bit
 * integer column, and 100 lines is more than any hosted checkout page can show usefully.
 */
export const MIN_CENTS = 1;
export const MIN_QUANTITY = 1;
import { MAX_AMOUNT_CENTS, MAX_TEXT_LENGTH } from '../domain/limits';
export const MAX_QUANTITY = 10_000;
export const MAX_LINE_ITEMS = 100;
export const MAX_PAYMENT_OPTIONS = 20;
export const EXPERIENCES = ['web', 'webview', 'iframe'] as const;
export const SUBSCRIPTION_INTERVALS = ['day', 'week', 'month', 'year'] as const;
/** At most one year between two subscription charges, whatever the unit (as card networks expect). */
export const MAX_INTERVAL_COUNT: Record<(typeof SUBSCRIPTION_INTERVALS)[number], number> = { day: 365, week: 52, month: 12, year: 1 };
const MAX_URL = 2048;

const cents = z.number().int().min(MIN_CENTS).max(MAX_AMOUNT_CENTS);
const quantity = z.number().int().min(MIN_QUANTITY).max(MAX_QUANTITY);
const httpUrl = z.string().max(MAX_URL).pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }));

const ProductReference = z
  .object({ product_id: z.string().min(1).max(MAX_TEXT_LENGTH), quantity })
  .strict()
  .openapi({ description: 'An existing active product of this business.' });

const InlineProduct = z
  .object({
    name: z.string().min(1).max(MAX_TEXT_LENGTH),
    price_cents: cents,
    quantity,
    sku: z.string().min(1).max(MAX_TEXT_LENGTH).optional().openapi({ description: '`shipping` and `tax` render as shipping and tax lines.' }),
    url: httpUrl.optional().openapi({ description: 'Product image URL.' }),
    dedup: z.boolean().optional().openapi({ description: 'Reuse this business\'s product with the same sku and price_cents. Requires sku.' }),
  })
  .strict()
  .refine((item) => !item.dedup || item.sku !== undefined, { message: 'dedup: true requires sku', path: ['sku'] })
  .openapi({ description: 'An inline product; a new active product is created unless dedup reuses one.' });

const REFERENCE_SHAPE = '{product_id, quantity}';
const INLINE_SHAPE = '{name, price_cents, quantity, sku?, url?, dedup?}';

/**
 * A union's own failure says only "Invalid input", so the message names the branch the element
 * was meant to be (it has product_id or not) and that branch's first problem.
 */
export const LineItemInput = z
  .union([ProductReference, InlineProduct], {
    error: (issue) => {
      if (issue.code !== 'invalid_union') return undefined;
      const reference = typeof issue.input === 'object' && issue.input !== null && 'product_id' in issue.input;
      const first = issue.errors[reference ? 0 : 1]?.[0];
      const problem = !first
        ? 'invalid line item'
        : first.code === 'unrecognized_keys'
          ? `unknown field(s) ${first.keys.join(', ')}`
          : `${first.path.join('.') || 'line item'}: ${first.message}`;
      return `${problem} (a line item is either ${REFERENCE_SHAPE} or an inline product ${INLINE_SHAPE})`;
    },
  })
  .openapi('LineItemInput');
export type LineItemInput = z.infer<typeof LineItemInput>;

export const SubscriptionData = z
  .object({
    interval: z.enum(SUBSCRIPTION_INTERVALS),
    interval_count: z.number().int().min(1),
  })
  .strict()
  .refine((s) => s.interval_count <= MAX_INTERVAL_COUNT[s.interval], {
    message: 'the period between charges may be at most one year (365 days, 52 weeks, 12 months or 1 year)',
    path: ['interval_count'],
  })
  .openapi('SubscriptionData', { description: 'Quarterly is {interval: "month", interval_count: 3}.' });

export const CheckoutCreateBody = registry.register(
  'CheckoutCreate',
  z
    .object({
      customer_id: z.string().min(1).max(MAX_TEXT_LENGTH),
      type: z.enum(CHECKOUT_TYPES),
      line_items: z.array(LineItemInput).min(1).max(MAX_LINE_ITEMS).optional().openapi({ description: 'Purchase and subscription flows only.' }),
      subscription_data: SubscriptionData.optional(),
      fixed_amount_cents: cents.optional().openapi({ description: 'Preset deposit or preset withdrawal.' }),
      balance_amount_cents: cents.optional().openapi({ description: 'Balance withdrawal: the asserted balance, the ceiling of the amount.' }),
      experience: z.enum(EXPERIENCES).optional(),
      // Plain strings, not an enum: an unknown identifier is reported as unsupported by the flow rules.
      payment_options: z
        .array(z.string().min(1).max(64))
        .min(1)
        .max(MAX_PAYMENT_OPTIONS)
        .refine((list) => new Set(list).size === list.length, { message: 'must not repeat a value' })
        .optional()
        .openapi({ description: `Subset of ${PAYMENT_METHODS.join(', ')}; default: every method enabled for the checkout type.` }),
      return_url: httpUrl.optional(),
    })
    .strict()
    .openapi({ description: 'Exactly one flow applies: deposit, preset_deposit, purchase, subscription, balance_withdrawal, preset_withdrawal.' }),
);
export type CheckoutCreateBody = z.infer<typeof CheckoutCreateBody>;

/** One element of the response's line_items: the product as resolved, with the line total. */
export const CheckoutLineItem = registry.register(
  'CheckoutLineItem',
  z.object({
    product_id: z.string().openapi({ example: 'prod_8Hq2...' }),
    name: z.string(),
    price_cents: z.number().int(),
    quantity: z.number().int(),
    total_amount_cents: z.number().int(),
    sku: z.string().nullable(),
    url: z.string().nullable(),
  }),
);

const timestamp = (description: string) => z.string().nullable().openapi({ format: 'date-time', description });

/** The subscription a subscription checkout creates; also every webhook's `data.subscription` (an extension: the contract shows no fields). */
export const SubscriptionObject = registry.register(
  'Subscription',
  z
    .object({
      id: z.string().nullable().openapi({ description: 'Prefix `sub_`. Null until the checkout\'s first charge succeeds and creates the subscription.', example: 'sub_7Gk2...' }),
      status: z.enum(SUBSCRIPTION_STATUSES).openapi({
        description: '`incomplete` before the first charge; `active` when paid up; `past_due` while a failed renewal is retried; `cancelled` for good (`cancellation_reason`).',
      }),
      interval: z.enum(SUBSCRIPTION_INTERVALS),
      interval_count: z.number().int(),
      amount_cents: z.number().int().openapi({ description: 'Charged every period: the line items total.' }),
      current_period_start: timestamp('Start of the last paid period.'),
      current_period_end: timestamp('End of the last paid period; the next renewal falls due then.'),
      next_charge_at: timestamp('When the next charge is made: the period end, or a dunning retry while past_due; null once cancelled.'),
      cancel_at_period_end: z.boolean(),
      cancelled_at: timestamp('When the subscription ended.'),
      cancellation_reason: z.enum(CANCELLATION_REASONS).nullable().openapi({ description: '`requested` by the merchant, or `payment_failed` after the last dunning retry.' }),
      failed_attempts: z.number().int().openapi({ description: 'Failed renewal charges of the period now due; 0 when paid up.' }),
    })
    .openapi({ description: 'Present only for subscription checkouts; in webhooks `data.subscription` carries the same object (null for other checkouts).' }),
);

export const CheckoutResponse = registry.register(
  'Checkout',
  z.object({
    url: z.string().openapi({ description: 'Wallet page; carries the client secret as a query parameter.' }),
    id: z.string().openapi({ example: 'chk_4f8Jk2...' }),
    client_secret: z.string().openapi({ description: 'Per-checkout value for the wallet; not an authorization credential.' }),
    line_items: z.array(CheckoutLineItem),
    line_items_total_amount_cents: z.number().int().nullable(),
    balance_amount_cents: z.number().int().nullable(),
    type: z.enum(CHECKOUT_TYPES),
    fixed_amount_cents: z.number().int().nullable(),
    experience: z.enum(EXPERIENCES).nullable(),
    payment_options: z.array(z.string()).nullable(),
    subscription: SubscriptionObject.optional().openapi({ description: 'Present only for subscription checkouts; the key is omitted otherwise.' }),
  }),
);
export type CheckoutResponse = z.infer<typeof CheckoutResponse>;
export type CheckoutLineItem = z.infer<typeof CheckoutLineItem>;

// Examples of checkout creation, one per flow the contract names, as the service answers them.
const CUSTOMER_ID = 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw';
const checkoutAnswer = (id: string, fields: Record<string, unknown>) => ({
  url: `https://wallet.example.com/checkout/${id}?client_secret=cs_7IOaMbyxkrCdeftykOgn9ssyFzaXaSHDaeHCZvvN`,
  id,
  client_secret: 'cs_7IOaMbyxkrCdeftykOgn9ssyFzaXaSHDaeHCZvvN',
  line_items: [],
  line_items_total_amount_cents: null,
  balance_amount_cents: null,
  fixed_amount_cents: null,
  experience: null,
  payment_options: null,
  ...fields,
});
const goldMembership = { product_id: 'prod_6Tq2kQ8sLm3Xa7Pc1Rt5VbNw', name: 'Gold membership', price_cents: 1999, quantity: 1, total_amount_cents: 1999, sku: 'GOLD-1', url: null };
const incompleteSubscription = {
  id: null, status: 'incomplete', interval: 'month', interval_count: 1, amount_cents: 1999, current_period_start: null, current_period_end: null,
  next_charge_at: null, cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null, failed_attempts: 0,
};
const CHECKOUT_REQUEST_EXAMPLES = {
  preset_deposit: {
    summary: 'Preset deposit: the customer pays 25.00',
    value: { customer_id: CUSTOMER_ID, type: 'deposit', fixed_amount_cents: 2500, experience: 'web', payment_options: ['credit_card'], return_url: 'https://shop.example.com/thanks' },
  },
  deposit: { summary: 'Deposit: the customer picks the amount', value: { customer_id: CUSTOMER_ID, type: 'deposit' } },
  purchase: { summary: 'Purchase: line items (an inline product, reused by its SKU)', value: { customer_id: CUSTOMER_ID, type: 'deposit', line_items: [{ name: 'Gold membership', price_cents: 1999, quantity: 1, sku: 'GOLD-1', dedup: true }] } },
  subscription: {
    summary: 'Subscription: line items charged every month',
    value: { customer_id: CUSTOMER_ID, type: 'deposit', line_items: [{ product_id: 'prod_6Tq2kQ8sLm3Xa7Pc1Rt5VbNw', quantity: 1 }], subscription_data: { interval: 'month', interval_count: 1 } },
  },
  balance_withdrawal: { summary: 'Balance withdrawal: up to the customer\'s balance of 100.00', value: { customer_id: CUSTOMER_ID, type: 'withdrawal', balance_amount_cents: 10000 } },
  preset_withdrawal: { summary: 'Preset withdrawal of 50.00', value: { customer_id: CUSTOMER_ID, type: 'withdrawal', fixed_amount_cents: 5000 } },
};
const CHECKOUT_ANSWER_EXAMPLES = {
  preset_deposit: {
    summary: 'A preset deposit',
    value: checkoutAnswer('chk_VB2zH9UaAjABGV93DR11mGo5', { type: 'deposit', fixed_amount_cents: 2500, experience: 'web', payment_options: ['credit_card'] }),
  },
  subscription: {
    summary: 'A subscription (the only checkout with the subscription key)',
    value: checkoutAnswer('chk_Ny1ZXZubyZxVnpRS0UqeiSjX', { type: 'deposit', line_items: [goldMembership], line_items_total_amount_cents: 1999, subscription: incompleteSubscription }),
  },
  balance_withdrawal: { summary: 'A balance withdrawal', value: checkoutAnswer('chk_o0MDU8ToA1pt2geIzXgdtqAo', { type: 'withdrawal', balance_amount_cents: 10000 }) },
};
const CHECKOUT_ERROR_EXAMPLES = {
  unsupported_combination: {
    summary: 'Two amount shapes at once',
    value: {
      error: 'Unsupported parameter combination: a deposit never takes balance_amount_cents.',
      hint: 'A checkout is exactly one of these flows: deposit (type deposit with no amount field); preset_deposit (type deposit with fixed_amount_cents); purchase (type deposit with line_items); subscription (type deposit with line_items and subscription_data); balance_withdrawal (type withdrawal with balance_amount_cents); preset_withdrawal (type withdrawal with fixed_amount_cents).',
      request_id: EXAMPLE_REQUEST_ID,
    },
  },
  unsupported_payment_options: {
    summary: 'A payment option the account does not offer for this type',
    value: { error: 'Unsupported payment_options: crypto.', hint: 'Payment methods enabled for deposit checkouts on this account: credit_card, bank_account.', request_id: EXAMPLE_REQUEST_ID },
  },
};

registry.registerPath({
  method: 'post',
  path: '/api/v1/checkouts',
  summary: 'Create a checkout session',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { body: jsonContent(CheckoutCreateBody, CHECKOUT_REQUEST_EXAMPLES) },
  responses: {
    201: { description: 'Created', ...jsonContent(CheckoutResponse, CHECKOUT_ANSWER_EXAMPLES) },
    ...errorResponses({ 400: 'Body is not JSON.' }, { 422: CHECKOUT_ERROR_EXAMPLES }),
  },
});
