import { z } from 'zod';
import { ApiKeyAuth, ErrorBody, errorResponses, EXAMPLE_REQUEST_ID, jsonContent, registry, requestIdField } from '../http/openapi-registry';
import { CHARGE_STATUSES } from '../domain/charge-states';
import { ChargeCustomer } from '../customers/schemas';

/** The refund's 503, on every surface that refunds (the public API, the admin API, the merchant dashboard). */
export const REFUND_UNAVAILABLE =
  'Temporal or the database could not be reached in time: nothing was done; send the request again after Retry-After seconds. Unless the error says the refund is under way: it was begun before the answer, completes by itself, and the same request sent again answers the charge refunded.';

const Instrument = z.record(z.string(), z.unknown()).nullable();

export const ChargeResponse = registry.register(
  'Charge',
  z.object({
    id: z.string(),
    amount_cents: z.number().int(),
    transaction_type: z.enum(['credit', 'debit']),
    currency: z.string(),
    status: z.enum(CHARGE_STATUSES),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    created_at: z.string().datetime(),
    updated_at: z.string().datetime(),
    checkout_id: z.string().openapi({ description: 'The checkout this charge is an attempt of (chk_).' }),
    customer: ChargeCustomer,
    payment_method: z
      .object({
        id: z.string(),
        payment_type: z.string(),
        created_at: z.string(),
        updated_at: z.string(),
        saved: z.boolean(),
        fingerprint: z.string(),
        card: Instrument,
        bank_account: Instrument,
        crypto_wallet: Instrument,
      }),
    avs_result: z.string().nullable(),
    cvv_result: z.string().nullable(),
    network_authorization_code: z.string().nullable(),
    processor_charge_id: z.string().nullable(),
    threeds: z.record(z.string(), z.unknown()).nullable().optional().openapi({ description: 'Card charges only; the key is omitted on bank and crypto charges.' }),
  }),
);

const RefundError = z.object({ error: z.string(), hint: z.string().optional(), responsetext: z.string().optional(), request_id: requestIdField });

// Examples of the contract's charge operations: a sandbox card deposit, as the service answers it.
const CHARGE_ID = 'ch_tMCs8WoIbciwLb63JPmIxm6i';
const exampleCharge = {
  id: CHARGE_ID,
  amount_cents: 2500,
  transaction_type: 'credit',
  currency: 'USD',
  status: 'succeeded',
  failure_code: null,
  failure_message: null,
  created_at: '2026-11-22T10:15:30.000Z',
  updated_at: '2026-11-22T10:15:31.000Z',
  checkout_id: 'chk_VB2zH9UaAjABGV93DR11mGo5',
  customer: { id: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw', internal_id: 'user-4711', email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone_number: '2025550143' },
  payment_method: {
    id: 'pm_pB03vFvg8afV6Lbu4CEIPwYD',
    payment_type: 'card',
    created_at: '2026-11-22T10:15:29.000Z',
    updated_at: '2026-11-22T10:15:29.000Z',
    saved: false,
    fingerprint: 'abbd1b74d9904bfa793afdac4725e9fc',
    card: { brand: 'visa', last4: '4242', funding: 'credit', exp_year: 2030, exp_month: 12 },
    bank_account: null,
    crypto_wallet: null,
  },
  avs_result: 'Y',
  cvv_result: 'M',
  network_authorization_code: '70DDHE',
  processor_charge_id: 'sandbox_alpha_ef4daf81fca4faee46d85b74',
  threeds: null,
};
const chargeNotFound = {
  not_found: { summary: 'No such charge for this merchant (also a charge of another merchant)', value: { error: 'Charge not found.', hint: `No charge ${CHARGE_ID} exists for this business.`, request_id: EXAMPLE_REQUEST_ID } },
};

registry.registerPath({
  method: 'get',
  path: '/api/v1/charges/{id}',
  summary: 'Retrieve a charge',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { params: z.object({ id: z.string().openapi({ example: CHARGE_ID }) }) },
  responses: {
    200: { description: 'The charge', ...jsonContent(ChargeResponse, { card_deposit: { summary: 'A succeeded card deposit', value: exampleCharge } }) },
    ...errorResponses({}, { 422: chargeNotFound }),
  },
});

registry.registerPath({
  method: 'post',
  path: '/api/v1/charges/{id}/refund',
  summary: 'Refund a succeeded card deposit in full (no body)',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { params: z.object({ id: z.string().openapi({ example: CHARGE_ID }) }) },
  responses: {
    200: { description: 'The refunded charge', ...jsonContent(ChargeResponse, { refunded: { summary: 'The charge, now refunded', value: { ...exampleCharge, status: 'refunded', updated_at: '2026-11-22T11:02:10.000Z' } } }) },
    422: {
      description: 'Refund refused',
      ...jsonContent(RefundError, {
        not_succeeded: { summary: 'Not succeeded (a second refund too)', value: { error: 'Unable to refund charge.', hint: `Charge ${CHARGE_ID} is not in status succeeded.`, request_id: EXAMPLE_REQUEST_ID } },
        not_credit: { summary: 'A withdrawal (debit) charge', value: { error: 'Only credit charges can be refunded.', request_id: EXAMPLE_REQUEST_ID } },
        unsupported_processor: { summary: 'A processor with no refunds', value: { error: 'Refund through this processor is not possible now.', request_id: EXAMPLE_REQUEST_ID } },
        declined: { summary: 'Declined by the processor', value: { error: 'Refund failed', responsetext: 'Refund amount exceeds transaction balance', request_id: EXAMPLE_REQUEST_ID } },
      }),
    },
    503: {
      description: `${REFUND_UNAVAILABLE} The same request sent again (same Idempotency-Key) refunds once.`,
      headers: { 'Retry-After': { description: 'Seconds to wait before sending the request again.', schema: { type: 'integer', minimum: 1 } } },
      ...jsonContent(ErrorBody, {
        unavailable: { summary: 'Nothing was done', value: { error: 'The payment service is briefly unavailable.', hint: 'Nothing was lost: send the same request again after Retry-After seconds.', request_id: EXAMPLE_REQUEST_ID } },
        under_way: {
          summary: 'Begun, and completes by itself',
          value: {
            error: 'The refund is under way.',
            hint: `The refund of charge ${CHARGE_ID} has begun and will complete (the processor is asked once, by the charge id): send the same request again after Retry-After seconds for its outcome.`,
            request_id: EXAMPLE_REQUEST_ID,
          },
        },
      }),
    },
  },
});
