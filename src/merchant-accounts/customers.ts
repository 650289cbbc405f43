import type { AppDeps } from '../app-deps';
import { presentCustomerWithRestriction } from '../admin/service';
import { listPage } from '../readback/list-page';
import { pageCustomers, type CustomerPageFilter } from '../storage/pages';
import { asMerchantNotFound } from './developers';

/** The merchant's customers: search, and restrictions with their evidence (a lift is the customers service's unrestrictCustomer). */

export function customersPage(deps: AppDeps, merchantId: string, query: CustomerPageFilter & { limit: number; starting_after?: string }) {
  return asMerchantNotFound(
    listPage(
      () => pageCustomers(deps.db, merchantId, { q: query.q, restricted: query.restricted }, { limit: query.limit, startingAfter: query.starting_after }),
      (rows) => rows.map(presentCustomerWithRestriction),
    ),
  );
}
