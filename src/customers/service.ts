import type { Knex } from 'knex';
import type { Db } from '../storage/db';
import { newId } from '../domain/ids';
import type { CredentialGuard } from '../storage/api-keys';
import type { MerchantRow } from '../storage/merchants';
import { DuplicateCustomerError, findCustomer, insertCustomer, searchCustomers, updateCustomer, type CreatedCustomer, type CustomerRow } from '../storage/customers';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors';
import type { CustomerCreateBody, CustomerUpdateBody } from './schemas';

/** Search answers at most this many customers; the contract leaves the maximum to us. */
export const MAX_SEARCH_RESULTS = 100;

/**
 * The three customer_fields configurations of the operator spec: which fields a create needs.
 * Pure, so the rule is tested without HTTP.
 */
export function missingRequiredFields(mode: MerchantRow['settings']['customer_fields'], body: CustomerCreateBody): string | null {
  const has = (field: keyof CustomerCreateBody) => body[field] !== undefined;
  switch (mode) {
    case 'names_and_email': {
      const missing = (['email', 'first_name', 'last_name'] as const).filter((f) => !has(f));
      return missing.length ? missing.join(', ') : null;
    }
    case 'names_and_email_or_phone': {
      const missing: string[] = (['first_name', 'last_name'] as const).filter((f) => !has(f));
      if (!has('email') && !has('phone_number')) missing.push('email or phone_number');
      return missing.length ? missing.join(', ') : null;
    }
    case 'email_only':
      return has('email') ? null : 'email';
  }
}

/**
 * Creates the customer. `when` is the credential's check (checkedInStatement), made by the same
 * INSERT: undefined means it failed and nothing was written.
 */
export async function createCustomer(db: Db, merchant: MerchantRow, body: CustomerCreateBody, when: CredentialGuard): Promise<CreatedCustomer | undefined> {
  const missing = missingRequiredFields(merchant.settings.customer_fields, body);
  if (missing) {
    throw new ValidationError(
      `Missing required field(s): ${missing}.`,
      `This account (customer_fields: ${merchant.settings.customer_fields}) requires ${describeMode(merchant.settings.customer_fields)}.`,
    );
  }
  return insertCustomer(db, {
    id: newId('customer'),
    merchant_id: merchant.id,
    internal_id: body.internal_id ?? null,
    email: body.email ?? null,
    first_name: body.first_name ?? null,
    last_name: body.last_name ?? null,
    phone_number: body.phone_number ?? null,
    date_of_birth: body.date_of_birth ?? null,
  }, when).catch(asConflict);
}

/** A taken unique value is the API's conflict, naming the field. */
function asConflict(error: unknown): never {
  if (!(error instanceof DuplicateCustomerError)) throw error;
  throw new ConflictError(
    error.message,
    `${error.field} must be unique within your business; search for the existing customer with GET /api/v1/customers/search.`,
  );
}

/** Changes the customer; undefined when none matched, or the credential's check `when` failed. */
export async function changeCustomer(db: Db, merchant: MerchantRow, id: string, body: CustomerUpdateBody, when: Knex.Raw): Promise<CustomerRow | undefined> {
  return updateCustomer(db, merchant.id, id, body, when).catch(asConflict);
}

/** Another merchant's customer is reported exactly like a missing one. */
export function customerNotFound(id: string): NotFoundError {
  return new NotFoundError('Customer not found.', `No customer ${id} exists for this business.`);
}

export async function getCustomer(db: Db, merchantId: string, id: string): Promise<CustomerRow> {
  const customer = await findCustomer(db, merchantId, id);
  if (!customer) throw customerNotFound(id);
  return customer;
}

/** The matching customers; undefined when none matched, or the credential's check `when` failed. */
export async function findCustomers(db: Db, merchant: MerchantRow, query: { email?: string; phone_number?: string; internal_id?: string }, when: Knex.Raw): Promise<CustomerRow[] | undefined> {
  const rows = await searchCustomers(db, merchant.id, query, MAX_SEARCH_RESULTS, when);
  return rows.length ? rows : undefined;
}

function describeMode(mode: MerchantRow['settings']['customer_fields']): string {
  return {
    names_and_email: 'email, first_name and last_name',
    names_and_email_or_phone: 'first_name and last_name plus email or phone_number',
    email_only: 'email',
  }[mode];
}

export function presentCustomer(row: CreatedCustomer) {
  return {
    id: row.id,
    internal_id: row.internal_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone_number: row.phone_number,
    date_of_birth: row.date_of_birth,
    created_at: row.created_at.toISOString(),
  };
}

export function presentUpdatedCustomer(row: CustomerRow) {
  return { ...presentCustomer(row), updated_at: row.updated_at.toISOString() };
}

export function presentSearchResult(row: CustomerRow) {
  const { date_of_birth: _omitted, ...rest } = presentCustomer(row);
  return rest;
}
