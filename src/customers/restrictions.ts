import type { AppDeps } from '../app-deps';
import { customerEventData } from '../domain/event-catalog';
import { dispatchCommitted } from '../events/dispatch';
import { recordEvent } from '../events/record';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import { lockCustomer, lockCustomerUnscoped, setRestriction, type CustomerRow } from '../storage/customers';
import type { Db } from '../storage/db';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { recordRestrictionEvidence } from '../decisions/evidence';
import { recordAudit } from '../identity/audit';
import { inScope, type Actor, type MerchantScope } from '../identity/context';

/** The contract's reason code for a verified KYC name that differs from the customer's profile. */
export const KYC_NAME_MISMATCH = 'KYC_DOES_NOT_MATCH_PROFILE_NAME';

/**
 * Restricts a customer inside the caller's transaction and records `customer.restricted`
 * (delivered only when enabled) in it. Returns the ids of the events to dispatch once the
 * caller has committed. Restricting a customer who already is restricted changes nothing and
 * records nothing: the first reason and restricted_at stand until the dashboard lifts it, so a
 * repeated gate check does not flood the merchant with events.
 */
export async function restrictCustomer(
  trx: Db,
  merchant: Pick<MerchantRow, 'id' | 'environment' | 'settings'>,
  customer: Pick<CustomerRow, 'id'>,
  reason: string,
): Promise<string[]> {
  const current = await lockCustomer(trx, merchant.id, customer.id);
  if (!current) throw new Error(`customer ${customer.id} does not belong to merchant ${merchant.id}`);
  if (current.restriction_reason !== null) return [];
  const restricted = (await setRestriction(trx, merchant.id, customer.id, reason))!;
  await recordRestrictionEvidence(trx, merchant, current, reason);
  const data = customerEventData({ customer: restricted, reason_code: reason, restricted_at: restricted.restricted_at!.toISOString() });
  const event = await recordEvent(trx, merchant, 'customer.restricted', data, { customerId: customer.id });
  return event.enabled ? [event.id] : [];
}

/**
 * The dashboards' unrestrict: clears the restriction, records `customer.unrestricted` and the
 * audit row naming the actor (with their client address) in one transaction, then dispatches.
 * A customer outside the actor's scope is answered like a missing one (not found), for every
 * caller; one not restricted is 422.
 */
export async function unrestrictCustomer(deps: AppDeps, actor: Actor, customerId: string, scope: MerchantScope) {
  const { customer, eventIds } = await deps.db.transaction(async (trx) => {
    const current = await lockCustomerUnscoped(trx, customerId);
    // Another merchant's customer (for a merchant's person) is reported exactly like a missing one.
    if (!current || !inScope(scope, current.merchant_id)) throw new AdminNotFoundError('Customer not found.', `No customer ${customerId}.`);
    if (current.restriction_reason === null) {
      throw new ValidationError('Customer is not restricted.', `Customer ${customerId} has no restriction to lift.`);
    }
    const merchant = (await findMerchant(trx, current.merchant_id))!;
    const cleared = (await setRestriction(trx, merchant.id, current.id, null))!;
    // reason_code names the restriction that was lifted, the same key customer.restricted uses.
    const data = customerEventData({ customer: cleared, reason_code: current.restriction_reason, unrestricted_at: new Date().toISOString() });
    const event = await recordEvent(trx, merchant, 'customer.unrestricted', data, { customerId: current.id });
    await recordAudit(trx, { merchantId: merchant.id, actor, action: 'customer.unrestricted', target: customerId, details: { reason_code: current.restriction_reason } });
    return { customer: cleared, eventIds: event.enabled ? [event.id] : [] };
  });
  await dispatchCommitted(deps, eventIds);
  return presentRestriction(customer);
}

export function presentRestriction(row: CustomerRow) {
  return { id: row.id, restricted: row.restriction_reason !== null, restriction_reason: row.restriction_reason };
}
