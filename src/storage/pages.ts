import type { Knex } from 'knex';
import { containing, narrowCharges, narrowCheckouts, type AdminCheckoutRow, type AdminCustomerRow, type AdminSearch } from './admin-reads';
import type { ChargeRow } from './charges';
import type { CheckoutRow } from './checkouts';
import type { Db } from './db';
import type { EventRow } from './events';
import type { MerchantAuditRow } from './audit-log';
import type { MerchantInvitationRow } from './invitations';
import type { MerchantUserRow, OperatorUserRow } from './people';
import { withDefaultSettings } from '../domain/settings';
import type { MerchantRow } from './merchants';
import type { RefundRow } from './refunds';
import type { ReviewRow } from './reviews';
import type { SubscriptionRow } from './subscriptions';

/** One page of a list (newest first unless said otherwise): `limit` rows after the `startingAfter` row (exclusive). */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
}

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
}

/** The cursor row does not exist in this scope; the caller reports it like any unknown id. */
export class UnknownCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`unknown cursor ${cursor}`);
  }
}

/** How a table is ordered: newest first by (created_at, id) (or oldest first, a queue's order), or by the events' commit sequence. */
type Order = { kind: 'created'; oldestFirst?: boolean } | { kind: 'seq' };

/**
 * A keyset page of `table`, every query scoped by `scope` (always including merchant_id when a
 * merchant reads) and narrowed further by `narrow`. The cursor is compared in SQL against the cursor row itself, so timestamps
 * keep their microseconds and ties on created_at are broken by id.
 */
async function pageOf<T>(
  db: Db,
  table: string,
  scope: Record<string, string | boolean | null>,
  page: PageRequest,
  order: Order = { kind: 'created' },
  narrow: (query: Knex.QueryBuilder) => void = () => {},
): Promise<Page<T>> {
  const query: Knex.QueryBuilder = db(table).where(scope);
  narrow(query);
  if (page.startingAfter !== undefined) {
    const cursor = await db(table).where({ ...scope, id: page.startingAfter }).first('id');
    if (!cursor) throw new UnknownCursorError(page.startingAfter);
    if (order.kind === 'seq') query.where('seq', '<', db(table).select('seq').where({ id: page.startingAfter }));
    else query.whereRaw(`(created_at, id) ${order.oldestFirst ? '>' : '<'} (SELECT created_at, id FROM ${table} WHERE id = ?)`, [page.startingAfter]);
  }
  const direction = order.kind === 'created' && order.oldestFirst ? ('asc' as const) : ('desc' as const);
  const columns = order.kind === 'seq' ? [{ column: 'seq', order: direction }] : [{ column: 'created_at', order: direction }, { column: 'id', order: direction }];
  const rows = (await query.orderBy(columns).limit(page.limit + 1)) as T[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** The equality filters given (those left undefined do not narrow). */
function definedOnly(filters: Record<string, string | boolean | undefined>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [column, value] of Object.entries(filters)) if (value !== undefined) out[column] = value;
  return out;
}

/** The merchant's scope plus the optional equality filters given. */
const merchantScope = (merchantId: string, filters: Record<string, string | boolean | undefined>) => ({ ...definedOnly(filters), merchant_id: merchantId });

export const pageCheckouts = (db: Db, merchantId: string, filters: { customer_id?: string }, page: PageRequest) =>
  pageOf<CheckoutRow>(db, 'checkouts', merchantScope(merchantId, filters), page);

export const pageCharges = (db: Db, merchantId: string, filters: { checkout_id?: string; customer_id?: string }, page: PageRequest) =>
  pageOf<ChargeRow>(db, 'charges', merchantScope(merchantId, filters), page);

export const pageSucceededRefunds = (db: Db, merchantId: string, page: PageRequest) =>
  pageOf<RefundRow>(db, 'refunds', merchantScope(merchantId, { status: 'succeeded' }), page);

/** `enabledOnly`: only the events the merchant was sent. */
export const pageEvents = (db: Db, merchantId: string, filters: { type?: string; checkout_id?: string }, enabledOnly: boolean, page: PageRequest) =>
  pageOf<EventRow>(db, 'events', merchantScope(merchantId, { ...filters, enabled: enabledOnly ? true : undefined }), page, { kind: 'seq' });

export const pageMerchantAuditLog = (db: Db, merchantId: string, page: PageRequest) =>
  pageOf<MerchantAuditRow>(db, 'audit_log', merchantScope(merchantId, {}), page);

/**
 * The whole audit log, newest first (the operator reads it): every merchant's entries and the
 * operator's own (merchant_id NULL), narrowed to one merchant, to the operator's own, or to an actor
 * (its id, or the email kept with the entry: an operator's, or the email a failed sign-in tried).
 */
export const pageAuditLogUnscoped = (db: Db, filters: { merchantId?: string; operatorOnly?: boolean; actor?: string }, page: PageRequest) =>
  pageOf<MerchantAuditRow>(db, 'audit_log', {}, page, { kind: 'created' }, (query) => {
    if (filters.merchantId !== undefined) void query.where({ merchant_id: filters.merchantId });
    if (filters.operatorOnly) void query.whereNull('merchant_id');
    if (filters.actor !== undefined) void query.where((q) => q.where({ actor: filters.actor }).orWhere({ actor_email: filters.actor }));
  });

/** The operator's people (no merchant), oldest first (the order they joined). */
export const pageOperatorsUnscoped = (db: Db, page: PageRequest) =>
  pageOf<OperatorUserRow>(db, 'people', { merchant_id: null }, page, { kind: 'created', oldestFirst: true });

/** The open invitations of a merchant (or, with null, of the operator's people), newest first. */
export const pageOpenInvitations = (db: Db, merchantId: string | null, page: PageRequest) =>
  pageOf<MerchantInvitationRow>(db, 'invitations', { merchant_id: merchantId }, page, { kind: 'created' }, (query) => {
    query.whereNull('accepted_at').whereNull('revoked_at').where('expires_at', '>', db.fn.now());
  });

/** A merchant's people, oldest first (the order they joined). */
export const pageMerchantUsers = (db: Db, merchantId: string, page: PageRequest) =>
  pageOf<MerchantUserRow>(db, 'people', merchantScope(merchantId, {}), page, { kind: 'created', oldestFirst: true });

/** A merchant's reviews: the queue oldest first, or recent decisions newest first. */
export const pageReviews = (db: Db, merchantId: string, filters: { status?: string }, oldestFirst: boolean, page: PageRequest) =>
  pageOf<ReviewRow>(db, 'reviews', merchantScope(merchantId, filters), page, { kind: 'created', oldestFirst });

/** What a person types to find a customer: an id, or part of the email, a name, the phone number or the internal id. */
export interface CustomerPageFilter {
  q?: string;
  restricted?: boolean;
}

/** A merchant's customers, newest first, narrowed by a search and by whether they are restricted. */
export const pageCustomers = (db: Db, merchantId: string, filter: CustomerPageFilter, page: PageRequest) =>
  pageOf<AdminCustomerRow>(db, 'customers', merchantScope(merchantId, {}), page, { kind: 'created' }, (query) => {
    if (filter.restricted !== undefined) {
      if (filter.restricted) query.whereNotNull('restriction_reason');
      else query.whereNull('restriction_reason');
    }
    if (filter.q) {
      const q = filter.q;
      const fragment = containing(q);
      query.where((inner) => {
        inner.where({ id: q });
        for (const column of ['email', 'first_name', 'last_name', 'phone_number', 'internal_id']) inner.orWhereILike(column, fragment);
      });
    }
  });

/** A merchant's checkouts, newest first, narrowed by a search (the admin search's fields). */
export const pageCheckoutSearch = (db: Db, merchantId: string, search: AdminSearch, page: PageRequest) =>
  pageOf<AdminCheckoutRow>(db, 'checkouts', merchantScope(merchantId, {}), page, { kind: 'created' }, (query) => narrowCheckouts(db, query, search));

/** A merchant's charges, newest first, narrowed by a search. */
export const pageChargeSearch = (db: Db, merchantId: string, search: AdminSearch, page: PageRequest) =>
  pageOf<ChargeRow>(db, 'charges', merchantScope(merchantId, {}), page, { kind: 'created' }, (query) => narrowCharges(db, query, search));

// ---------------------------------------------------------------------------------------------
// The operator's pages across every merchant (the admin API, behind the admin token). Not scoped
// by merchant, hence the names; never used on a merchant's request path. A `merchant_id` filter,
// when given, is part of the scope, so a cursor naming another merchant's row is unknown there.

/** Every merchant, newest first, with the defaults of settings added after each was onboarded; `q` narrows to a name or id fragment. */
export async function pageMerchantsUnscoped(db: Db, page: PageRequest, filter: { q?: string } = {}): Promise<Page<MerchantRow>> {
  const { rows, hasMore } = await pageOf<MerchantRow>(db, 'merchants', {}, page, { kind: 'created' }, (query) => {
    if (filter.q) {
      const fragment = containing(filter.q);
      query.where((inner) => inner.whereILike('name', fragment).orWhereILike('id', fragment));
    }
  });
  return { rows: rows.map((row) => ({ ...row, settings: withDefaultSettings(row.settings, row.environment) })), hasMore };
}

/** Checkouts of any merchant, newest first, narrowed by a search. */
export const pageCheckoutSearchUnscoped = (db: Db, search: AdminSearch, page: PageRequest) =>
  pageOf<AdminCheckoutRow>(db, 'checkouts', definedOnly({ merchant_id: search.merchantId }), page, { kind: 'created' }, (query) => narrowCheckouts(db, query, search));

/** Charges of any merchant, newest first, narrowed by a search. */
export const pageChargeSearchUnscoped = (db: Db, search: AdminSearch, page: PageRequest) =>
  pageOf<ChargeRow>(db, 'charges', definedOnly({ merchant_id: search.merchantId }), page, { kind: 'created' }, (query) => narrowCharges(db, query, search));

/**
 * Restricted customers, newest customer first: by when the customer was created, not restricted,
 * because a restriction lifted and made again would move a row between pages while they are read.
 */
export const pageRestrictedCustomersUnscoped = (db: Db, filters: { merchant_id?: string }, page: PageRequest) =>
  pageOf<AdminCustomerRow>(db, 'customers', definedOnly(filters), page, { kind: 'created' }, (query) => query.whereNotNull('restriction_reason'));

/**
 * Reviews: the queue oldest first, or decisions newest first. The status is a filter, not the
 * cursor's scope: a reviewer who decides the last review of a page still reads the next page.
 */
export const pageReviewsUnscoped = (db: Db, filters: ReviewFilter & { status?: string }, oldestFirst: boolean, page: PageRequest) =>
  pageOf<ReviewRow>(db, 'reviews', definedOnly({ merchant_id: filters.merchant_id }), page, { kind: 'created', oldestFirst }, (query) => {
    if (filters.status) query.where({ status: filters.status });
    narrowReviews(query, filters);
  });

/** What narrows the operator's review queue besides the merchant and the status: the amount, and how long a review has waited. */
export interface ReviewFilter {
  merchant_id?: string;
  minAmountCents?: number;
  maxAmountCents?: number;
  /** Only reviews opened before this (waiting at least so long). */
  createdBefore?: Date;
}

function narrowReviews(query: Knex.QueryBuilder, filters: ReviewFilter): void {
  if (filters.minAmountCents !== undefined) query.where('amount_cents', '>=', filters.minAmountCents);
  if (filters.maxAmountCents !== undefined) query.where('amount_cents', '<=', filters.maxAmountCents);
  if (filters.createdBefore) query.where('created_at', '<', filters.createdBefore);
}

/** How many reviews of each status the filter selects (the queue's tabs). */
export async function countReviewsUnscoped(db: Db, filters: ReviewFilter): Promise<Record<'pending' | 'approved' | 'declined', number>> {
  const query = db('reviews').where(definedOnly({ merchant_id: filters.merchant_id }));
  narrowReviews(query, filters);
  const rows: Array<{ status: string; count: string | number }> = await query.groupBy('status').select('status').count({ count: '*' });
  const counts = { pending: 0, approved: 0, declined: 0 };
  for (const row of rows) if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.count);
  return counts;
}

/** The event log, newest first (commit sequence). */
export const pageEventsUnscoped = (db: Db, filters: { merchant_id?: string; type?: string; checkout_id?: string; charge_id?: string }, page: PageRequest) =>
  pageOf<EventRow>(db, 'events', definedOnly({ merchant_id: filters.merchant_id }), page, { kind: 'seq' }, (query) => {
    query.where(definedOnly({ type: filters.type, checkout_id: filters.checkout_id, charge_id: filters.charge_id }));
  });

/** Subscriptions, newest first; like the review queue, the status narrows without scoping the cursor. */
export const pageSubscriptionsUnscoped = (db: Db, filters: { merchant_id?: string; customer_id?: string; status?: string }, page: PageRequest) =>
  pageOf<SubscriptionRow>(db, 'subscriptions', definedOnly({ merchant_id: filters.merchant_id }), page, { kind: 'created' }, (query) => {
    query.where(definedOnly({ customer_id: filters.customer_id, status: filters.status }));
  });
