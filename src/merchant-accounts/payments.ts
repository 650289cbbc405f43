import type { AppDeps } from '../app-deps';
import { getAdminCheckout, getTimeline, parseSearch } from '../admin/service';
import { presentLoaded } from '../charges/load';
import { refundCharge } from '../charges/refund';
import { MerchantNotFoundError } from '../http/errors';
import { listPage } from '../readback/list-page';
import { presentStoredCheckout } from '../readback/service';
import { findCharge } from '../storage/charges';
import { findCustomersByIds } from '../storage/customers';
import { presentChargeCustomer } from '../charges/present';
import { pageChargeSearch, pageCheckoutSearch } from '../storage/pages';
import { asMerchantNotFound } from './developers';
import { sessionActor, type MerchantSession } from '../identity/sessions';

/** The merchant's payments: the admin API's search, detail, timeline and refund, scoped to the session's merchant. */

export interface PaymentSearchQuery {
  q?: string;
  customer_id?: string;
  checkout_id?: string;
  limit: number;
  starting_after?: string;
}

/** The admin search's reading of `q` (an id by its prefix, or an email fragment), the merchant always the session's. */
const searchOf = (merchantId: string, query: PaymentSearchQuery) => ({ ...parseSearch({ ...query, merchant_id: undefined }), merchantId });

/** The account's checkouts, each with its customer (people are shown by name, not id). */
export function checkoutsPage(deps: AppDeps, merchantId: string, query: PaymentSearchQuery) {
  return asMerchantNotFound(
    listPage(
      () => pageCheckoutSearch(deps.db, merchantId, searchOf(merchantId, query), { limit: query.limit, startingAfter: query.starting_after }),
      async (rows) => {
        const customers = await findCustomersByIds(deps.db, merchantId, rows.map((row) => row.customer_id));
        return rows.map((row) => {
          const customer = customers.get(row.customer_id);
          return { ...presentStoredCheckout(row), customer: customer ? presentChargeCustomer(customer) : null };
        });
      },
    ),
  );
}

export function chargesPage(deps: AppDeps, merchantId: string, query: PaymentSearchQuery) {
  return asMerchantNotFound(
    listPage(
      () => pageChargeSearch(deps.db, merchantId, searchOf(merchantId, query), { limit: query.limit, startingAfter: query.starting_after }),
      (rows) => Promise.all(rows.map((row) => presentLoaded(deps.db, row))),
    ),
  );
}

/** One checkout with its charges, review and block evidence; another merchant's is 404. */
export async function merchantCheckout(deps: AppDeps, merchantId: string, id: string) {
  const { merchant_id: _merchant, workflow_url: _workflow, ...checkout } = await asMerchantNotFound(getAdminCheckout(deps, id, merchantId));
  return checkout;
}

/** Everything that happened to one of the merchant's checkouts, in order (the operator's timeline, without the Temporal link). */
export async function merchantTimeline(deps: AppDeps, merchantId: string, id: string) {
  const { workflow_url: _workflow, ...timeline } = await asMerchantNotFound(getTimeline(deps, id, merchantId));
  return timeline;
}

/** The dashboard refund (owners): the same rules, result and event as the operator's; the refund row and the audit entry name the person, committed with the refund. */
export async function refundMerchantCharge(deps: AppDeps, session: MerchantSession, chargeId: string) {
  // Another merchant's charge is a 404 like a missing one, the dashboard's answer (not the public refund's).
  if (!(await findCharge(deps.db, session.merchant.id, chargeId))) throw new MerchantNotFoundError('Charge not found.', `No charge ${chargeId} in this account.`);
  return refundCharge(deps, chargeId, { merchantId: session.merchant.id }, 'dashboard', undefined, { email: session.user.email, actor: sessionActor(session) });
}
