import type { AppDeps } from '../app-deps';
import { getAdminCheckout, getTimeline, parseSearch } from '../admin/service';
import { presentLoaded } from '../charges/load';
import { refundCharge } from '../charges/refund';
import { MerchantNotFoundError } from '../http/errors';
import { listPage } from '../readback/list-page';
import { presentStoredCheckout } from '../readback/service';
import { findCharge } from '../storage/charges';
import { setRefundRequester } from '../storage/refunds';
import { pageChargeSearch, pageCheckoutSearch } from '../storage/pages';
import { recordAudit } from './audit';
import { asMerchantNotFound } from './developers';
import type { MerchantSession } from './sessions';

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

export function checkoutsPage(deps: AppDeps, merchantId: string, query: PaymentSearchQuery) {
  return asMerchantNotFound(
    listPage(() => pageCheckoutSearch(deps.db, merchantId, searchOf(merchantId, query), { limit: query.limit, startingAfter: query.starting_after }), (rows) => rows.map(presentStoredCheckout)),
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

/** The dashboard refund (owners): the same rules, result and event as the operator's; the refund row and the audit log name the person. */
export async function refundMerchantCharge(deps: AppDeps, session: MerchantSession, chargeId: string) {
  const merchantId = session.merchant.id;
  const charge = await findCharge(deps.db, merchantId, chargeId);
  if (!charge) throw new MerchantNotFoundError('Charge not found.', `No charge ${chargeId} in this account.`);
  const refunded = await refundCharge(deps, chargeId, { merchantId }, 'dashboard');
  // The refund row names the person too, with its audit entry.
  await deps.db.transaction(async (trx) => {
    await setRefundRequester(trx, merchantId, chargeId, session.user.email);
    await recordAudit(trx, { merchantId, actor: { kind: 'user', id: session.user.id }, action: 'charge.refunded', target: chargeId, details: { amount_cents: charge.amount_cents, checkout_id: charge.checkout_id } });
  });
  return refunded;
}
