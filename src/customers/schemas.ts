import { dateOfBirthSchema, MAX_TEXT_LENGTH } from '../domain/limits';
import { z } from 'zod';
import { ApiKeyAuth, errorResponses, EXAMPLE_REQUEST_ID, jsonContent, registry } from '../http/openapi-registry';

/** Limits of the contract's Customer resource, named once. */
export const PHONE_PATTERN = /^\d{10}$/;

const email = z.string().max(MAX_TEXT_LENGTH).pipe(z.email());
/** A legal name: min length 1 as the contract says, and not blanks alone, which would stand for no name. */
const name = z.string().min(1).max(MAX_TEXT_LENGTH).regex(/\S/, 'must not be blank');
const phoneNumber = z.string().regex(PHONE_PATTERN, 'must be exactly 10 digits, no country code or punctuation');
const dateOfBirth = dateOfBirthSchema;
/**
 * Input accepts a string or an integer; it is stored and echoed as a string. A union's own
 * failure says only "Invalid input", so the message says what the field takes; an integer past
 * 2^53 cannot be read exactly from JSON, hence a string for those.
 */
const internalId = z.union([z.string().min(1).max(MAX_TEXT_LENGTH), z.number().int().transform(String)], {
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    return Number.isInteger(issue.input)
      ? `must be a string or an integer within ±${Number.MAX_SAFE_INTEGER} (send a larger identifier as a string)`
      : 'must be a string or an integer';
  },
});

export const CustomerCreateBody = registry.register(
  'CustomerCreate',
  z
    .object({
      email: email.optional(),
      first_name: name.optional(),
      last_name: name.optional(),
      phone_number: phoneNumber.optional(),
      date_of_birth: dateOfBirth.optional(),
      internal_id: internalId.optional(),
    })
    .strict(),
);
export type CustomerCreateBody = z.infer<typeof CustomerCreateBody>;

export const CustomerUpdateBody = registry.register(
  'CustomerUpdate',
  z
    .object({
      email: email.optional(),
      first_name: name.optional(),
      last_name: name.optional(),
      phone_number: phoneNumber.optional(),
      date_of_birth: dateOfBirth.optional(),
    })
    .strict()
    .refine((body) => Object.values(body).some((v) => v !== undefined), {
      message: 'at least one of email, first_name, last_name, phone_number, date_of_birth is required',
    }),
);
export type CustomerUpdateBody = z.infer<typeof CustomerUpdateBody>;

/** Search input: a leading +1 and every non-digit are stripped from phone_number before matching. */
export const CustomerSearchQuery = z
  .object({
    // No email holds a space: one here is a + that a query string decoded (ada+shop@ sent unencoded).
    email: z.string().min(1).max(MAX_TEXT_LENGTH).transform((raw) => raw.replace(/ /g, '+')).optional(),
    phone_number: z
      .string()
      .max(40)
      .transform((raw) => normalizeSearchPhone(raw))
      .pipe(phoneNumber)
      .optional(),
    internal_id: z.string().min(1).max(MAX_TEXT_LENGTH).optional(),
  })
  .refine((q) => q.email !== undefined || q.phone_number !== undefined || q.internal_id !== undefined, {
    message: 'at least one of email, phone_number, internal_id is required',
  });

export function normalizeSearchPhone(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.startsWith('+1')) return trimmed.slice(2).replace(/\D/g, '');
  const digits = trimmed.replace(/\D/g, '');
  // A query string decodes an unencoded + as a space, so "+15551234567" sent as written reads
  // " 15551234567": a leading blank before 1 and ten more digits is that +1.
  return /^\s/.test(raw) && digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
}

const CustomerFields = {
  id: z.string().openapi({ example: 'cus_4f8Jk2...' }),
  internal_id: z.string().nullable(),
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone_number: z.string().nullable(),
  created_at: z.string().datetime(),
};
/** A customer as each of its charges shows it: the customer's own fields but its creation time. */
export const ChargeCustomer = z.object(CustomerFields).omit({ created_at: true });
export const CustomerResponse = registry.register(
  'Customer',
  z.object({ ...CustomerFields, date_of_birth: z.string().nullable() }),
);
export const CustomerUpdateResponse = registry.register(
  'CustomerUpdated',
  z.object({ ...CustomerFields, date_of_birth: z.string().nullable(), updated_at: z.string().datetime() }),
);
export const CustomerSearchResponse = registry.register(
  'CustomerSearchResults',
  z.object({ results: z.array(z.object(CustomerFields)) }),
);

// Examples of the contract's customer operations, as the service answers them.
const CUSTOMER_ID = 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw';
const exampleCustomer = {
  id: CUSTOMER_ID,
  internal_id: 'user-4711',
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone_number: '2025550143',
  date_of_birth: '1990-12-10',
  created_at: '2026-11-22T10:15:30.000Z',
};
const duplicateEmail = {
  duplicate: {
    summary: 'Email already taken in this business',
    value: {
      error: 'A customer with this email already exists.',
      hint: 'email must be unique within your business; search for the existing customer with GET /api/v1/customers/search.',
      request_id: EXAMPLE_REQUEST_ID,
    },
  },
};
const unknownCustomer = {
  not_found: { summary: 'No such customer for this business', value: { error: 'Customer not found.', hint: `No customer ${CUSTOMER_ID} exists for this business.`, request_id: EXAMPLE_REQUEST_ID } },
};
const { date_of_birth: _omitted, ...exampleSearchResult } = exampleCustomer;

registry.registerPath({
  method: 'post',
  path: '/api/v1/customers',
  summary: 'Create a customer',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: {
    body: jsonContent(CustomerCreateBody, {
      default_account: { summary: 'Email and names (the default account configuration)', value: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone_number: '2025550143', date_of_birth: '1990-12-10', internal_id: 'user-4711' } },
      integer_internal_id: { summary: 'internal_id as an integer (answered as a string)', value: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', internal_id: 4712 } },
    }),
  },
  responses: {
    201: { description: 'Created', ...jsonContent(CustomerResponse, { created: { summary: 'The new customer', value: exampleCustomer } }) },
    ...errorResponses({ 400: 'Body is not JSON.' }, { 422: duplicateEmail }),
  },
});
registry.registerPath({
  method: 'patch',
  path: '/api/v1/customers/{id}',
  summary: 'Update a customer',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: {
    params: z.object({ id: z.string().openapi({ example: CUSTOMER_ID }) }),
    body: jsonContent(CustomerUpdateBody, { last_name: { summary: 'Change one field; the others keep their values', value: { last_name: 'Byron' } } }),
  },
  responses: {
    200: { description: 'Updated', ...jsonContent(CustomerUpdateResponse, { updated: { summary: 'The customer after the change', value: { ...exampleCustomer, last_name: 'Byron', updated_at: '2026-11-22T10:16:02.000Z' } } }) },
    ...errorResponses(
      { 400: 'Body is not JSON.' },
      {
        422: {
          empty: {
            summary: 'An empty body',
            value: {
              error: 'Request body is invalid: at least one of email, first_name, last_name, phone_number, date_of_birth is required.',
              hint: 'at least one of email, first_name, last_name, phone_number, date_of_birth is required',
              request_id: EXAMPLE_REQUEST_ID,
            },
          },
          ...duplicateEmail,
          ...unknownCustomer,
        },
      },
    ),
  },
});
registry.registerPath({
  method: 'get',
  path: '/api/v1/customers/search',
  summary: 'Search customers (AND of the given criteria)',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: {
    query: z.object({
      email: z.string().optional().openapi({ example: 'ada@example.com' }),
      phone_number: z.string().optional().openapi({ example: '+1 (202) 555-0143' }),
      internal_id: z.string().optional().openapi({ example: 'user-4711' }),
    }),
  },
  responses: {
    200: {
      description: 'Matches',
      ...jsonContent(CustomerSearchResponse, {
        found: { summary: 'One match', value: { results: [exampleSearchResult] } },
        none: { summary: 'No match: results is always present', value: { results: [] } },
      }),
    },
    ...errorResponses(
      {},
      {
        422: {
          no_criteria: {
            summary: 'No search parameter',
            value: {
              error: 'Search query is invalid: at least one of email, phone_number, internal_id is required.',
              hint: 'at least one of email, phone_number, internal_id is required',
              request_id: EXAMPLE_REQUEST_ID,
            },
          },
        },
      },
    ),
  },
});
