import type { AppDeps } from '../app-deps';
import { presentCustomerWithRestriction } from '../admin/service';
import { presentRestriction, unrestrictCustomer } from '../customers/restrictions';
import { listPage } from '../readback/list-page';
import { pageCustomers, type CustomerPageFilter } from '../storage/pages';
import { recordAudit } from '../identity/audit';
import { asMerchantNotFound } from './developers';
import { sessionActor, type MerchantSession } from '../identity/sessions';

/** The merchant's customers: search, restrictions with their evidence, and lifting one (the operator's lift, scoped). */

export function customersPage(deps: AppDeps, merchantId: string, query: CustomerPageFilter & { limit: number; starting_after?: string }) {
  return asMerchantNotFound(
    listPage(
      () => pageCustomers(deps.db, merchantId, { q: query.q, restricted: query.restricted }, { limit: query.limit, startingAfter: query.starting_after }),
      (rows) => rows.map(presentCustomerWithRestriction),
    ),
  );
}

/** Lifts a restriction of the merchant's customer; the audit row, naming the person, commits with the lift. */
export async function liftRestriction(deps: AppDeps, session: MerchantSession, customerId: string) {
  const merchantId = session.merchant.id;
  const lifted = await unrestrictCustomer(deps, customerId, {
    merchantId,
    record: (trx, before) => recordAudit(trx, { merchantId, actor: sessionActor(session), action: 'customer.unrestricted', target: customerId, details: { reason_code: before.restriction_reason } }),
  });
  return presentRestriction(lifted);
}
