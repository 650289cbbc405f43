import type { AppDeps } from '../app-deps';
import { getAdminCheckout, getTimeline, parseSearch } from '../admin/service';
import { presentLoaded } from '../charges/load';
import { refundCharge } from '../charges/refund';
import { MerchantNotFoundError } from '../http/errors';
import { listPage, presentStoredCheckout } from '../readback/service';
import { findCharge, type ChargeRow } from '../storage/charges';
import type { Db } from '../storage/db';
import { setRefundRequester } from '../storage/refunds';
import { pageChargeSearch, pageCheckoutSearch } from '../storage/pages';
import { recordAudit } from './audit';
import type { Actor } from './context';
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
  await recordDashboardRefund(deps.db, charge, { kind: 'user', id: session.user.id }, session.user.email);
  return refunded;
}

/** After a dashboard refund (a merchant's or the operator's), the refund row names the person who asked (null: the admin token), with its audit entry. */
export async function recordDashboardRefund(db: Db, charge: ChargeRow, actor: Actor, requestedBy: string | null): Promise<void> {
  await db.transaction(async (trx) => {
    if (requestedBy !== null) await setRefundRequester(trx, charge.merchant_id, charge.id, requestedBy);
    await recordAudit(trx, { merchantId: charge.merchant_id, actor, action: 'charge.refunded', target: charge.id, details: { amount_cents: charge.amount_cents, checkout_id: charge.checkout_id } });
  });
}
