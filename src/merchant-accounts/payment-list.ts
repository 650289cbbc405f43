import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { AppDeps } from '../app-deps';
import { presentLineItem } from '../checkouts/present';
import { presentChargeCustomer, presentPaymentMethod } from '../charges/present';
import { ValidationError } from '../http/errors';
import { listPage } from '../readback/list-page';
import type { Db } from '../storage/db';
import { findCustomersByIds } from '../storage/customers';
import { findPaymentMethodsByIds, pagePayments, type PaymentFilter, type PaymentRow } from '../storage/payments';
import { asMerchantNotFound } from './developers';
import type { PaymentFilterQuery, PaymentListQuery } from './payment-schemas';

/** The merchant's payments: one row per checkout, its status read from its charges and refunds (operator spec, section 7). */

const DAY_MS = 86_400_000;
/** How many rows the export reads at a time: the file streams out while the next batch is read. */
const EXPORT_BATCH = 500;

/** The query as the storage filter; a range that ends before it starts is refused rather than answered empty. */
export function paymentFilter(query: PaymentFilterQuery): PaymentFilter {
  if (query.created_from && query.created_to && query.created_from > query.created_to) {
    throw new ValidationError('Query is invalid: created_from is after created_to.', 'Pass created_from on or before created_to (both YYYY-MM-DD, UTC days, both included).');
  }
  if (query.amount_min_cents !== undefined && query.amount_max_cents !== undefined && query.amount_min_cents > query.amount_max_cents) {
    throw new ValidationError('Query is invalid: amount_min_cents is more than amount_max_cents.', 'Pass amount_min_cents at most amount_max_cents (both in cents).');
  }
  return {
    status: query.status,
    kind: query.type,
    createdFrom: query.created_from ? new Date(`${query.created_from}T00:00:00Z`) : undefined,
    // The last day is included: everything before the start of the day after.
    createdBefore: query.created_to ? new Date(Date.parse(`${query.created_to}T00:00:00Z`) + DAY_MS) : undefined,
    amountMinCents: query.amount_min_cents,
    amountMaxCents: query.amount_max_cents,
    customerId: query.customer_id,
    q: query.q,
  };
}

/** Payments as the API answers them, each with its customer and the card (or account) of its last charge. */
async function presentPayments(db: Db, merchantId: string, rows: PaymentRow[]) {
  const [customers, methods] = await Promise.all([
    findCustomersByIds(db, merchantId, rows.map((row) => row.customer_id)),
    findPaymentMethodsByIds(db, merchantId, rows.flatMap((row) => (row.last_payment_method_id ? [row.last_payment_method_id] : []))),
  ]);
  return rows.map((row) => {
    const customer = customers.get(row.customer_id);
    const method = row.last_payment_method_id ? methods.get(row.last_payment_method_id) : undefined;
    return {
      id: row.id,
      type: row.kind,
      flow: row.flow,
      status: row.payment_status,
      amount_cents: Number(row.amount_cents),
      paid_cents: row.paid_cents,
      refunded_cents: row.refunded_cents,
      currency: row.currency,
      customer: customer ? presentChargeCustomer(customer) : null,
      payment_method: method ? presentPaymentMethod(method) : null,
      line_items: row.line_items.map(presentLineItem),
      charge_id: row.last_charge_id,
      created_at: row.created_at.toISOString(),
    };
  });
}
export type PresentedPayment = Awaited<ReturnType<typeof presentPayments>>[number];

export function paymentsPage(deps: Pick<AppDeps, 'db'>, merchantId: string, query: PaymentListQuery) {
  const filter = paymentFilter(query);
  return asMerchantNotFound(listPage(
    () => pagePayments(deps.db, merchantId, filter, { limit: query.limit, startingAfter: query.starting_after }),
    (rows) => presentPayments(deps.db, merchantId, rows),
  ));
}

const dollars = (cents: number) => (cents / 100).toFixed(2);
const fullName = (c: PresentedPayment['customer']) => (c ? `${c.first_name ?? ''} ${c.last_name ?? ''}`.trim() : '');

/** How a payment method reads in a cell: "visa ending 4242", "bank_account ending 6789". */
function methodText(pm: PresentedPayment['payment_method']): string {
  if (!pm) return '';
  const instruments = pm as { card?: { brand?: string; last4?: string } | null; bank_account?: { last4?: string } | null };
  const card = instruments.card;
  if (card) return `${card.brand ?? 'card'} ending ${card.last4 ?? '?'}`;
  const bank = instruments.bank_account;
  if (bank) return `bank account ending ${bank.last4 ?? '?'}`;
  return pm.payment_type;
}

export const PAYMENT_CSV_COLUMNS = [
  'id', 'created_at', 'type', 'status', 'amount', 'refunded', 'currency', 'customer_name', 'customer_email', 'customer_id', 'payment_method', 'items', 'charge_id',
] as const;

function csvRecord(p: PresentedPayment): Record<(typeof PAYMENT_CSV_COLUMNS)[number], string> {
  return {
    id: p.id,
    created_at: p.created_at,
    type: p.type,
    status: p.status,
    amount: dollars(p.amount_cents),
    refunded: dollars(p.refunded_cents),
    currency: p.currency,
    customer_name: fullName(p.customer),
    customer_email: p.customer?.email ?? '',
    customer_id: p.customer?.id ?? '',
    payment_method: methodText(p.payment_method),
    items: p.line_items.map((item) => `${item.quantity} x ${item.name}`).join('; '),
    charge_id: p.charge_id ?? '',
  };
}

async function* everyPayment(db: Db, merchantId: string, filter: PaymentFilter) {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await pagePayments(db, merchantId, filter, { limit: EXPORT_BATCH, startingAfter });
    for (const payment of await presentPayments(db, merchantId, page.rows)) yield csvRecord(payment);
    if (!page.hasMore || page.rows.length === 0) return;
    startingAfter = page.rows[page.rows.length - 1]!.id;
  }
}

/**
 * Every payment the filters select, newest first, as CSV with a header row (RFC 4180 quoting by
 * csv-stringify). A cell a spreadsheet would run as a formula (a customer's name starting with =)
 * is escaped, since names are typed by customers.
 */
export function paymentsCsv(deps: Pick<AppDeps, 'db'>, merchantId: string, query: PaymentFilterQuery): Readable {
  const filter = paymentFilter(query);
  const records = Readable.from(everyPayment(deps.db, merchantId, filter));
  const file = stringify({ header: true, columns: [...PAYMENT_CSV_COLUMNS], escape_formulas: true, record_delimiter: 'windows' });
  // A read that fails mid-file ends the file with the error (the caller cuts the answer short).
  records.on('error', (error) => file.destroy(error));
  return records.pipe(file);
}
