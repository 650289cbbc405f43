import type { AppDeps } from '../app-deps';
import { getAdminCheckout, getTimeline, parseSearch } from '../admin/service';
import { presentLoaded } from '../charges/load';
import { listPage } from '../readback/list-page';
import { presentStoredCheckout } from '../readback/service';
import { findCustomersByIds } from '../storage/customers';
import { presentChargeCustomer } from '../charges/present';
import { pageChargeSearch, pageCheckoutSearch } from '../storage/pages';
import { asMerchantNotFound } from './developers';

/** The merchant's payments: the admin API's search, detail and timeline, scoped to the session's merchant. */

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
