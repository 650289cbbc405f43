import { dateOfBirthSchema, MAX_TEXT_LENGTH } from '../domain/limits';
import { z } from 'zod';
import { ApiKeyAuth, errorResponses, EXAMPLE_REQUEST_ID, jsonContent, registry } from '../http/openapi-registry';

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

// Examples of the KYC upsert, as the service answers it.
const exampleKycRequest = {
  customer_id: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw', first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10', address_line_1: '1 Main St', address_line_2: null,
  city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true, email: 'ada@example.com', phone_number: '2025550143', last_four_ssn: '1234',
};
const { customer_id: _customer, last_four_ssn: _neverEchoed, ...recordFields } = exampleKycRequest;
const exampleKycRecord = { id: 'id_KlLfcjUrHbTrb27HGPorXHiU', ...recordFields };

registry.registerPath({
  method: 'post',
  path: '/api/v1/kyc/upsert',
  summary: 'Submit a KYC record for a customer',
  description:
    'Updates the customer\'s record from the same provider when one exists (200), otherwise creates a new record (201). ' +
    'last_four_ssn is stored encrypted and never returned.',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { body: jsonContent(KycUpsertBody, { verified: { summary: 'A verified identity (last_four_ssn is stored, never echoed)', value: exampleKycRequest } }) },
  responses: {
    200: { description: 'The existing record from this provider, updated', ...jsonContent(KycRecordResponse, { updated: { summary: 'Now unverified', value: { ...exampleKycRecord, verified: false } } }) },
    201: { description: 'A new record', ...jsonContent(KycRecordResponse, { created: { summary: 'The new record', value: exampleKycRecord } }) },
    ...errorResponses(
      { 400: 'Body is not JSON.', 404: 'KYC is disabled for this business.' },
      {
        404: {
          disabled: {
            summary: 'KYC is off for this business',
            value: { error: 'KYC is disabled for this business.', hint: 'KYC is disabled for this business; contact the service operator to enable it.', request_id: EXAMPLE_REQUEST_ID },
          },
        },
        422: { invalid: { summary: 'A field out of its format', value: { error: 'Request body is invalid: state: must be 2 uppercase letters.', hint: 'state: must be 2 uppercase letters', request_id: EXAMPLE_REQUEST_ID } } },
      },
    ),
  },
});
