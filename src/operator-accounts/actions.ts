import type { AppDeps } from '../app-deps';
import { refundCharge } from '../charges/refund';
import { presentRestriction, unrestrictCustomer } from '../customers/restrictions';
import { recordAudit } from '../merchant-accounts/audit';
import type { Actor } from '../merchant-accounts/context';
import { recordDashboardRefund } from '../merchant-accounts/payments';
import { changeSettings, issueKey, revokeKey, rollSigningSecret, type MerchantServiceOptions } from '../merchants/service';
import type { MerchantSettingsPatch } from '../domain/settings';
import type { RollSigningSecretBody } from '../merchants/schemas';
import { decideReview } from '../reviews/service';
import { findChargeByIdUnscoped } from '../storage/charges';
import { findReviewUnscoped } from '../storage/reviews';
import type { ReviewDecision } from '../../workflows/contract';

/**
 * The admin API's changes to a merchant, each recorded in that merchant's audit log with who made
 * it: the operator's person signed in to the dashboard (their id and email), or `admin` for the
 * admin token. A review decision names the operator's email as its decider and a refund as its
 * requester; the token keeps `admin API` as decider and no requester.
 */

const deciderOf = (actor: Actor) => (actor.kind === 'operator' ? actor.email : 'admin API');

export async function decideReviewAsOperator(deps: AppDeps, actor: Actor, reviewId: string, decision: ReviewDecision) {
  const decided = await decideReview(deps, reviewId, decision, deciderOf(actor));
  const review = (await findReviewUnscoped(deps.db, reviewId))!;
  await recordAudit(deps.db, {
    merchantId: review.merchant_id,
    actor,
    action: decision === 'approved' ? 'review.approved' : 'review.declined',
    target: reviewId,
    details: { checkout_id: review.checkout_id, amount_cents: review.amount_cents },
  });
  return decided;
}

export async function refundAsOperator(deps: AppDeps, actor: Actor, chargeId: string) {
  const refunded = await refundCharge(deps, chargeId, {}, 'dashboard');
  const charge = (await findChargeByIdUnscoped(deps.db, chargeId))!;
  await recordDashboardRefund(deps.db, charge, actor, actor.kind === 'operator' ? actor.email : null);
  return refunded;
}

/** The lift and its audit row commit together. */
export async function unrestrictAsOperator(deps: AppDeps, actor: Actor, customerId: string) {
  const lifted = await unrestrictCustomer(deps, customerId, {
    record: (trx, before) => recordAudit(trx, { merchantId: before.merchant_id, actor, action: 'customer.unrestricted', target: customerId, details: { reason_code: before.restriction_reason } }),
  });
  return presentRestriction(lifted);
}

/** The audit row names the settings changed, not their values (a Stripe key among them stays out of the log). */
export async function changeSettingsAsOperator(deps: AppDeps, options: MerchantServiceOptions, actor: Actor, merchantId: string, patch: MerchantSettingsPatch) {
  const settings = await changeSettings(deps.db, options, merchantId, patch);
  await recordAudit(deps.db, { merchantId, actor, action: 'settings.changed', target: merchantId, details: { settings: Object.keys(patch) } });
  return settings;
}

export function issueKeyAsOperator(deps: AppDeps, actor: Actor, merchantId: string) {
  return deps.db.transaction(async (trx) => {
    const issued = await issueKey(trx, merchantId);
    await recordAudit(trx, { merchantId, actor, action: 'api_key.issued', target: issued.key_prefix });
    return issued;
  });
}

export function revokeKeyAsOperator(deps: AppDeps, actor: Actor, merchantId: string, keyPrefix: string) {
  return deps.db.transaction(async (trx) => {
    await revokeKey(trx, merchantId, keyPrefix);
    await recordAudit(trx, { merchantId, actor, action: 'api_key.revoked', target: keyPrefix });
  });
}

export function rollSigningSecretAsOperator(deps: AppDeps, actor: Actor, merchantId: string, body: RollSigningSecretBody) {
  return deps.db.transaction(async (trx) => {
    const rolled = await rollSigningSecret(trx, deps.sealer, merchantId, body);
    await recordAudit(trx, { merchantId, actor, action: 'signing_secret.rolled', target: merchantId, details: { previous_expires_at: rolled.previous_webhook_secret_expires_at, forced: body.force } });
    return rolled;
  });
}
