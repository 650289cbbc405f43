import type { AppDeps } from '../app-deps';
import { refundCharge } from '../charges/refund';
import { presentRestriction, unrestrictCustomer } from '../customers/restrictions';
import { recordAudit } from '../identity/audit';
import type { Actor, AdminActor } from '../identity/context';
import { changeSettings, issueKey, revokeKey, rollSigningSecret, type MerchantServiceOptions } from '../merchants/service';
import type { MerchantSettingsPatch } from '../domain/settings';
import type { RollSigningSecretBody } from '../merchants/schemas';
import { decideReview } from '../reviews/service';
import { resendEvent } from '../events/service';
import type { ReviewDecision } from '../../workflows/contract';

/**
 * The admin API's changes to a merchant, each recorded in that merchant's audit log with who made
 * it: the operator's person signed in to the dashboard (their id and email), or `admin` for the
 * admin token. A review decision names the operator's email as its decider and a refund as its
 * requester; the token keeps `admin API` as decider and no requester.
 */

const deciderOf = (actor: Actor) => (actor.kind === 'operator' ? actor.email : 'admin API');

/** The decision's audit row commits with the decision itself (in the workflow's activity). */
export function decideReviewAsOperator(deps: AppDeps, actor: AdminActor, reviewId: string, decision: ReviewDecision) {
  return decideReview(deps, reviewId, decision, deciderOf(actor), { actor });
}

/** The refund row's requester and the audit entry commit with the refund itself (in the workflow's activity). */
export function refundAsOperator(deps: AppDeps, actor: AdminActor, chargeId: string) {
  return refundCharge(deps, chargeId, {}, 'dashboard', undefined, { email: actor.kind === 'operator' ? actor.email : null, actor });
}

/** The lift and its audit row commit together. */
export async function unrestrictAsOperator(deps: AppDeps, actor: Actor, customerId: string) {
  const lifted = await unrestrictCustomer(deps, customerId, {
    record: (trx, before) => recordAudit(trx, { merchantId: before.merchant_id, actor, action: 'customer.unrestricted', target: customerId, details: { reason_code: before.restriction_reason } }),
  });
  return presentRestriction(lifted);
}

/** The audit row holds each changed setting before and after (a Stripe key only as its last four), and commits with the change. */
export function changeSettingsAsOperator(deps: AppDeps, options: MerchantServiceOptions, actor: Actor, merchantId: string, patch: MerchantSettingsPatch) {
  return changeSettings(deps.db, options, merchantId, patch, (trx, changes) => recordAudit(trx, { merchantId, actor, action: 'settings.changed', target: merchantId, details: { changes } }));
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

/** The resend's audit row commits with its new delivery series, before the delivery starts. */
export function resendEventAsOperator(deps: AppDeps, actor: AdminActor, id: string) {
  return resendEvent(deps, id, (trx, series, event) => recordAudit(trx, { merchantId: event.merchant_id, actor, action: 'event.resent', target: id, details: { series } }));
}
