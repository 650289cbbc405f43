import { dateOfBirthSchema, MAX_TEXT_LENGTH } from '../domain/limits';
import { z } from 'zod';
import { ApiKeyAuth, errorResponses, registry } from '../http/openapi-registry';

/**
 * The 13 identity-verification providers a KYC record may name, lowercase as the contract
 * asks. Each is a company whose verification result a merchant forwards to us.
 */
export const KYC_PROVIDERS = [
  'persona',
  'onfido',
  'jumio',
  'veriff',
  'socure',
  'alloy',
  'sumsub',
  'trulioo',
  'idology',
  'prove',
  'plaid',
  'stripe_identity',
  'lexisnexis',
] as const;
export type KycProvider = (typeof KYC_PROVIDERS)[number];

/** Limits of the contract's KYC table, named once. */
export const STATE_PATTERN = /^[A-Z]{2}$/;
export const COUNTRY_PATTERN = /^[A-Z]{3}$/;
export const LAST_FOUR_SSN_PATTERN = /^[0-9]{4}$/;
/** Older dates are typos, and PostgreSQL rejects year 0, which would otherwise surface as a 500. */

/** A required text field: min length 1 as the contract says, and not blanks alone, which would stand for no value. */
const text = z.string().min(1).max(MAX_TEXT_LENGTH).regex(/\S/, 'must not be blank');
const dateOfBirth = dateOfBirthSchema;

export const KycUpsertBody = registry.register(
  'KycUpsert',
  z
    .object({
      customer_id: z.string().min(1).max(64),
      first_name: text,
      last_name: text,
      date_of_birth: dateOfBirth,
      address_line_1: text,
      address_line_2: z.string().max(MAX_TEXT_LENGTH).nullable().optional(),
      city: text,
      state: z.string().regex(STATE_PATTERN, 'must be 2 uppercase letters'),
      postal_code: text,
      country: z.string().regex(COUNTRY_PATTERN, 'must be 3 uppercase letters (ISO 3166-1 alpha-3)'),
      provider: z.enum(KYC_PROVIDERS),
      verified: z.boolean(),
      // The contract types these as plain strings (unlike the Customer's email and 10-digit phone):
      // providers report them in their own formats, and the record keeps what was verified.
      phone_number: z.string().max(MAX_TEXT_LENGTH).optional(),
      email: z.string().max(MAX_TEXT_LENGTH).optional(),
      // Never echoed and never logged; the logger redacts the key wherever it appears.
      last_four_ssn: z.string().regex(LAST_FOUR_SSN_PATTERN, 'must be exactly 4 digits').optional(),
    })
    .strict(),
);
export type KycUpsertBody = z.infer<typeof KycUpsertBody>;

export const KycRecordResponse = registry.register(
  'KycRecord',
  z.object({
    id: z.string().openapi({ example: 'id_7Qm2...' }),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    date_of_birth: z.string(),
    address_line_1: z.string(),
    address_line_2: z.string().nullable(),
    city: z.string(),
    state: z.string(),
    postal_code: z.string(),
    country: z.string(),
    provider: z.enum(KYC_PROVIDERS),
    verified: z.boolean(),
  }),
);

registry.registerPath({
  method: 'post',
  path: '/api/v1/kyc/upsert',
  summary: 'Submit a KYC record for a customer',
  description:
    'Updates the customer\'s record from the same provider when one exists (200), otherwise creates a new record (201). ' +
    'last_four_ssn is stored encrypted and never returned.',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { body: { content: { 'application/json': { schema: KycUpsertBody } } } },
  responses: {
    200: { description: 'The existing record from this provider, updated', content: { 'application/json': { schema: KycRecordResponse } } },
    201: { description: 'A new record', content: { 'application/json': { schema: KycRecordResponse } } },
    ...errorResponses({ 400: 'Body is not JSON.', 404: 'KYC is disabled for this business.' }),
  },
});
