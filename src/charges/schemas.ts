import { z } from 'zod';
import { ApiKeyAuth, errorResponses, registry, requestIdField } from '../http/openapi-registry';
import { CHARGE_STATUSES } from '../domain/charge-states';
import { ChargeCustomer } from '../customers/schemas';

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

registry.registerPath({
  method: 'get',
  path: '/api/v1/charges/{id}',
  summary: 'Retrieve a charge',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { params: z.object({ id: z.string() }) },
  responses: { 200: { description: 'The charge', content: { 'application/json': { schema: ChargeResponse } } }, ...errorResponses() },
});

registry.registerPath({
  method: 'post',
  path: '/api/v1/charges/{id}/refund',
  summary: 'Refund a succeeded card deposit in full (no body)',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: { description: 'The refunded charge', content: { 'application/json': { schema: ChargeResponse } } },
    422: { description: 'Refund refused', content: { 'application/json': { schema: RefundError } } },
  },
});
