import type { Knex } from 'knex';
import { credentialStillActiveSql, type CredentialColumn, type CredentialGuard } from './credential-guard';
import { queryPrepared, runPrepared, uniqueViolation, type Db } from './db';

export interface CustomerRow {
  id: string;
  merchant_id: string;
  internal_id: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  date_of_birth: string | null;
  restriction_reason: string | null;
  restricted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type CustomerWritable = Pick<CustomerRow, 'internal_id' | 'email' | 'first_name' | 'last_name' | 'phone_number' | 'date_of_birth'>;

const UNIQUE_FIELDS: Record<string, string> = {
  customers_merchant_email_uq: 'email',
  customers_merchant_phone_uq: 'phone_number',
  customers_merchant_internal_id_uq: 'internal_id',
};

/** Raised when a customer's email, phone number or internal id is already another customer's within the merchant. */
export class DuplicateCustomerError extends Error {
  constructor(readonly field: string) {
    super(`A customer with this ${field} already exists.`);
  }
}

/** A unique violation becomes the duplicate error, naming the field. */
function asDuplicate(error: unknown): never {
  const constraint = uniqueViolation(error);
  const field = constraint ? UNIQUE_FIELDS[constraint] : undefined;
  if (field) throw new DuplicateCustomerError(field);
  throw error;
}

/** Every column a create writes, with its type: INSERT … SELECT does not infer them from the table. */
const INSERTED_COLUMNS = [
  ['id', 'text'],
  ['merchant_id', 'text'],
  ['internal_id', 'text'],
  ['email', 'text'],
  ['first_name', 'text'],
  ['last_name', 'text'],
  ['phone_number', 'text'],
  ['date_of_birth', 'date'],
] as const;

type InsertedCustomer = CustomerWritable & { id: string; merchant_id: string };

const INSERTED_NAMES = INSERTED_COLUMNS.map(([name]) => name);

/** The columns a create answers with: the customer as the API shows it (the rest are unset on a new one). */
const CREATED_COLUMNS = ['id', 'internal_id', 'email', 'first_name', 'last_name', 'phone_number', 'date_of_birth', 'created_at'] as const;
export type CreatedCustomer = Pick<CustomerRow, (typeof CREATED_COLUMNS)[number]>;

/**
 * The create, written only while the credential's check holds (credentialStillActive), in
 * PostgreSQL's form: one text per credential column, the same for every customer, so each pooled
 * connection prepares it once.
 */
function insertCheckedSql(column: CredentialColumn): string {
  const guard = INSERTED_COLUMNS.length;
  return `INSERT INTO customers (${INSERTED_NAMES.join(', ')})
SELECT ${INSERTED_COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(', ')}
 WHERE ${credentialStillActiveSql(column, { hash: `$${guard + 1}`, merchantId: `$${guard + 2}`, version: `$${guard + 3}::xid` })}
RETURNING ${CREATED_COLUMNS.join(', ')}`;
}
const INSERT_CHECKED_SQL: Record<CredentialColumn, string> = { api_key_hash: insertCheckedSql('api_key_hash'), client_secret_hash: insertCheckedSql('client_secret_hash') };

/**
 * Inserts the customer, only if the credential's check `when` holds in the statement, answering
 * undefined when it does not.
 */
export async function insertCustomer(db: Db, row: InsertedCustomer, when: CredentialGuard): Promise<CreatedCustomer | undefined> {
  try {
    const bindings = [...INSERTED_NAMES.map((name) => row[name]), when.hash, when.merchantId, when.version];
    return (await queryPrepared<CreatedCustomer>(db, { sql: INSERT_CHECKED_SQL[when.column], bindings }))[0];
  } catch (error) {
    asDuplicate(error);
  }
}

/** `lockShared`: the row is locked FOR SHARE until the caller's transaction ends (a restriction waits for it). */
export async function findCustomer(db: Db, merchantId: string, id: string, lockShared = false): Promise<CustomerRow | undefined> {
  if (lockShared) return db<CustomerRow>('customers').where({ merchant_id: merchantId, id }).forShare().first();
  return (await runPrepared<CustomerRow>(db, 'SELECT * FROM customers WHERE merchant_id = $1 AND id = $2', [merchantId, id]))[0];
}

export async function updateCustomer(
  db: Db,
  merchantId: string,
  id: string,
  changes: Partial<CustomerWritable>,
  when?: Knex.Raw,
): Promise<CustomerRow | undefined> {
  try {
    const query = db<CustomerRow>('customers').where({ merchant_id: merchantId, id });
    if (when) void query.where(when);
    const [row] = await query
      .update({ ...changes, updated_at: db.fn.now() as unknown as Date })
      .returning('*');
    return row as CustomerRow | undefined;
  } catch (error) {
    asDuplicate(error);
  }
}

export interface CustomerSearch {
  email?: string;
  phone_number?: string;
  internal_id?: string;
}

/** AND of every given criterion, always scoped to the merchant; newest first, bounded. */
export async function searchCustomers(db: Db, merchantId: string, search: CustomerSearch, limit: number, when?: Knex.Raw): Promise<CustomerRow[]> {
  const query = db<CustomerRow>('customers').where({ merchant_id: merchantId });
  if (when) void query.where(when);
  if (search.email !== undefined) query.whereRaw('lower(email) = lower(?)', [search.email]);
  if (search.phone_number !== undefined) query.where({ phone_number: search.phone_number });
  if (search.internal_id !== undefined) query.where({ internal_id: search.internal_id });
  return query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
}

export async function setRestriction(db: Db, merchantId: string, id: string, reason: string | null): Promise<CustomerRow | undefined> {
  const [row] = await db<CustomerRow>('customers')
    .where({ merchant_id: merchantId, id })
    .update({ restriction_reason: reason, restricted_at: reason ? (db.fn.now() as unknown as Date) : null })
    .returning('*');
  return row as CustomerRow | undefined;
}

/** Unscoped: for the operator's admin API, which names a customer by id alone. */
/** The merchant's customer, locked for the rest of the transaction (restrict and unrestrict never interleave). */
export async function lockCustomer(trx: Db, merchantId: string, id: string): Promise<CustomerRow | undefined> {
  return trx<CustomerRow>('customers').where({ merchant_id: merchantId, id }).forUpdate().first();
}

/** The same lock by id alone, for the operator's unrestrict. */
export async function lockCustomerUnscoped(trx: Db, id: string): Promise<CustomerRow | undefined> {
  return trx<CustomerRow>('customers').where({ id }).forUpdate().first();
}

export async function findCustomerByIdUnscoped(db: Db, id: string): Promise<CustomerRow | undefined> {
  return db<CustomerRow>('customers').where({ id }).first();
}

/** The merchant's customers of `ids` (a page's), keyed by id; ids of another merchant are left out. */
export async function findCustomersByIds(db: Db, merchantId: string, ids: string[]): Promise<Map<string, CustomerRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db<CustomerRow>('customers').where({ merchant_id: merchantId }).whereIn('id', [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, row]));
}
