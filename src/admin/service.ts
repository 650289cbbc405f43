import type { AppDeps } from '../app-deps';
import { presentLoaded } from '../charges/load';
import { AdminNotFoundError } from '../http/errors';
import { presentMerchant } from '../merchants/service';
import { adminPage, type AdminPageQuery } from '../readback/list-page';
import { presentCheckoutDetail, presentStoredCheckout, presentStoredCustomer } from '../readback/service';
import { findCheckoutUnscoped, findCustomersUnscoped, findMerchantNamesUnscoped, findPaymentMethodsUnscoped, timelineRowsUnscoped, type AdminCheckoutRow, type AdminCustomerRow, type AdminSearch } from '../storage/admin-reads';
import type { Db } from '../storage/db';
import { pageChargeSearchUnscoped, pageCheckoutSearchUnscoped, pageMerchantsUnscoped, pageRestrictedCustomersUnscoped } from '../storage/pages';
import type { ReviewRow } from '../storage/reviews';
import { findCheckoutWorkflow } from '../temporal/checkouts';
import { checkoutWorkflowId } from '../../workflows/contract';
import { buildTimeline } from './timeline';
import type { AdminSearchQuery } from './schemas';

/** Reads behind the dashboard: any merchant's records, for the operator. */

/** What a person typed into the search box, read by its id prefix; anything else is an email fragment. */
export function parseSearch(query: AdminSearchQuery): AdminSearch {
  const search: AdminSearch = { merchantId: query.merchant_id, customerId: query.customer_id, checkoutId: query.checkout_id };
  const q = query.q;
  if (!q) return search;
  if (q.startsWith('mer_')) search.merchantId = q;
  else if (q.startsWith('cus_')) search.customerId = q;
  else if (q.startsWith('chk_')) search.checkoutId = q;
  else if (q.startsWith('ch_')) search.chargeId = q;
  else search.email = q;
  return search;
}

/** Each row's merchant by name beside its id (operators read names; the id stays to copy). */
export async function withMerchantNames<Row extends { merchant_id: string }>(db: Db, rows: Row[]): Promise<Array<Row & { merchant_name: string | null }>> {
  const names = await findMerchantNamesUnscoped(db, rows.map((row) => row.merchant_id));
  return rows.map((row) => ({ ...row, merchant_name: names.get(row.merchant_id) ?? null }));
}

/** A customer as a person reads them beside a record: the name and email, with the id. */
const customerBrief = (c: Pick<AdminCustomerRow, 'id' | 'email' | 'first_name' | 'last_name'> | undefined) => (c ? { id: c.id, email: c.email, first_name: c.first_name, last_name: c.last_name } : null);

export function searchCheckouts(db: Db, query: AdminSearchQuery) {
  return adminPage((page) => pageCheckoutSearchUnscoped(db, parseSearch(query), page), query, async (rows) => {
    const customers = new Map((await findCustomersUnscoped(db, rows.map((row) => row.customer_id))).map((c) => [c.id, c]));
    return withMerchantNames(db, rows.map((row) => ({ ...presentStoredCheckout(row), merchant_id: row.merchant_id, customer: customerBrief(customers.get(row.customer_id)) })));
  });
}

export function searchCharges(db: Db, query: AdminSearchQuery) {
  return adminPage((page) => pageChargeSearchUnscoped(db, parseSearch(query), page), query, async (rows) => withMerchantNames(db, await Promise.all(rows.map(async (c) => ({ ...(await presentLoaded(db, c)), merchant_id: c.merchant_id })))));
}

/** `merchantId`: only that merchant's (the merchant dashboard); another merchant's is reported like a missing one. */
async function loadCheckout(db: Db, id: string, merchantId?: string): Promise<AdminCheckoutRow> {
  const checkout = await findCheckoutUnscoped(db, id);
  if (!checkout || (merchantId !== undefined && checkout.merchant_id !== merchantId)) throw new AdminNotFoundError('Checkout not found.', `No checkout ${id}.`);
  return checkout;
}

export function workflowUrl(temporalUiUrl: string, workflowId: string): string {
  return temporalUiUrl.replace('{id}', encodeURIComponent(workflowId));
}

/**
 * The operator's link to the checkout's workflow: the checkout's own once an attempt started it,
 * its expiry workflow while nobody has tried it, none when Temporal keeps neither. While Temporal
 * cannot be asked, the checkout's own id is linked, its status unknown.
 */
async function checkoutWorkflowLink(deps: Pick<AppDeps, 'config' | 'temporal' | 'logger'>, checkoutId: string) {
  const found = await findCheckoutWorkflow(deps.temporal, checkoutId).catch((error: unknown) => {
    deps.logger.warn({ err: error, checkout_id: checkoutId }, 'could not ask Temporal for the checkout\'s workflow');
    return { id: checkoutWorkflowId(checkoutId), kind: 'checkout' as const, status: 'unknown' };
  });
  const workflow = found && { ...found, url: workflowUrl(deps.config.temporalUiUrl, found.id) };
  return { workflow_url: workflow?.url ?? null, workflow };
}

export async function getAdminCheckout(deps: Pick<AppDeps, 'db' | 'config'>, id: string, merchantId?: string) {
  const checkout = await loadCheckout(deps.db, id, merchantId);
  return {
    ...(await presentCheckoutDetail(deps.db, checkout)),
    merchant_id: checkout.merchant_id,
    blocked_evidence: checkout.blocked_evidence,
    workflow_url: workflowUrl(deps.config.temporalUiUrl, checkout.id),
  };
}

/** The operator's checkout: getAdminCheckout, with the workflow Temporal has for it, and its merchant and customer by name. */
export async function getOperatorCheckout(deps: AppDeps, id: string) {
  const checkout = await getAdminCheckout(deps, id);
  const [named] = await withMerchantNames(deps.db, [checkout]);
  const [customer] = await findCustomersUnscoped(deps.db, [checkout.customer_id]);
  return { ...named!, customer: customerBrief(customer), ...(await checkoutWorkflowLink(deps, checkout.id)) };
}

/** The operator's timeline: getTimeline, with the workflow Temporal has for the checkout. */
export async function getOperatorTimeline(deps: AppDeps, id: string) {
  const timeline = await getTimeline(deps, id);
  return { ...timeline, ...(await checkoutWorkflowLink(deps, timeline.checkout_id)) };
}

export async function getTimeline(deps: Pick<AppDeps, 'db' | 'config'>, id: string, merchantId?: string) {
  const checkout = await loadCheckout(deps.db, id, merchantId);
  const rows = await timelineRowsUnscoped(deps.db, checkout);
  return { checkout_id: checkout.id, workflow_url: workflowUrl(deps.config.temporalUiUrl, checkout.id), entries: buildTimeline({ checkout, ...rows }) };
}

/** Every merchant, newest first, for the operator; `q` finds them by a fragment of the name or the id. */
export function listMerchants(db: Db, query: AdminPageQuery & { q?: string }) {
  return adminPage((page) => pageMerchantsUnscoped(db, page, { q: query.q }), query, (rows) => rows.map(presentMerchant));
}

export function listRestrictedCustomers(db: Db, query: AdminPageQuery & { merchant_id?: string }) {
  return adminPage((page) => pageRestrictedCustomersUnscoped(db, { merchant_id: query.merchant_id }, page), query, (rows) =>
    withMerchantNames(db, rows.map((c) => ({ ...presentCustomerWithRestriction(c), merchant_id: c.merchant_id }))),
  );
}

/** A customer with when and why it was restricted (the evidence the restriction was decided on). */
export function presentCustomerWithRestriction(c: AdminCustomerRow) {
  return { ...presentStoredCustomer(c), restricted_at: c.restricted_at?.toISOString() ?? null, restriction_evidence: c.restriction_evidence };
}

type AdminReview = ReviewRow & { evidence?: Record<string, unknown> | null; decided_by?: string | null };

/** What a reviewer needs beside each review: the customer, the payment method, the evidence and who decided. */
export async function reviewDetails(db: Db, rows: AdminReview[]) {
  const customers = new Map((await findCustomersUnscoped(db, rows.map((r) => r.customer_id))).map((c) => [c.id, c]));
  const methods = new Map((await findPaymentMethodsUnscoped(db, rows.map((r) => r.payment_method_id))).map((m) => [m.id, m]));
  return rows.map((r) => {
    const c = customers.get(r.customer_id);
    const pm = methods.get(r.payment_method_id);
    return {
      customer: c ? { id: c.id, email: c.email, first_name: c.first_name, last_name: c.last_name, restriction_reason: c.restriction_reason } : null,
      payment_method: pm ? { id: pm.id, payment_type: pm.payment_type, details: pm.details } : null,
      evidence: r.evidence ?? null,
      decided_by: r.decided_by ?? null,
    };
  });
}
