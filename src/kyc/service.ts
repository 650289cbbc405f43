import type { AppDeps } from '../app-deps';
import { newId } from '../domain/ids';
import { customerEventData } from '../domain/event-catalog';
import { dispatchCommitted } from '../events/dispatch';
import { recordEvent } from '../events/record';
import { FeatureDisabledError, NotFoundError } from '../http/errors';
import { findCustomer } from '../storage/customers';
import type { MerchantRow } from '../storage/merchants';
import {
  findKycRecordByProvider,
  insertKycRecord,
  lockKycWrites,
  replaceKycRecord,
  type KycRecordRow,
  type KycRecordWritable,
} from '../storage/kyc-records';
import type { KycUpsertBody } from './schemas';

export interface KycUpsertResult {
  record: KycRecordRow;
  /** True when the submission created a record (201 and customer.kyc.created), false when it updated one (200). */
  created: boolean;
}

/** The contract's 404 when the operator turned KYC off for the account. */
export function assertKycEnabled(merchant: MerchantRow): void {
  if (!merchant.settings.kyc_enabled) {
    throw new FeatureDisabledError('KYC is disabled for this business.', 'KYC is disabled for this business; contact the service operator to enable it.');
  }
}

/**
 * Create-or-update rule (the contract leaves it to us): a submission updates the customer's
 * record from the same provider when one exists, otherwise it creates a new record.
 *
 * Why keyed by provider: a provider's verification of a person is one evolving decision
 * (pending, passed, revoked after review), so re-sending it, or sending its new outcome,
 * must not pile up duplicates, and `verified: false` from that provider must replace its
 * earlier `true`. A different provider is an independent verification and keeps its own
 * record, which is how a customer comes to have several. An update replaces every field with
 * the submission (omitted optional fields, last_four_ssn included, become null: the record
 * is exactly the provider's latest statement) and bumps updated_at, so the record just
 * written is always the latest, the one hosted checkout reads.
 */
export async function upsertKycRecord(deps: AppDeps, merchant: MerchantRow, body: KycUpsertBody): Promise<KycUpsertResult> {
  assertKycEnabled(merchant);
  const { db, sealer } = deps;
  const fields: KycRecordWritable = {
    first_name: body.first_name,
    last_name: body.last_name,
    email: body.email ?? null,
    phone_number: body.phone_number ?? null,
    date_of_birth: body.date_of_birth,
    address_line_1: body.address_line_1,
    address_line_2: body.address_line_2 ?? null,
    city: body.city,
    state: body.state,
    postal_code: body.postal_code,
    country: body.country,
    provider: body.provider,
    verified: body.verified,
    last_four_ssn_sealed: body.last_four_ssn === undefined ? null : sealer.seal(body.last_four_ssn),
  };

  const { result, eventIds } = await db.transaction(async (trx) => {
    const customer = await findCustomer(trx, merchant.id, body.customer_id);
    // Another merchant's customer is reported exactly like a missing one.
    if (!customer) throw new NotFoundError('Customer not found.', `No customer ${body.customer_id} exists for this business.`);
    await lockKycWrites(trx, customer.id);
    const existing = await findKycRecordByProvider(trx, merchant.id, customer.id, body.provider);
    if (existing) {
      return { result: { record: await replaceKycRecord(trx, merchant.id, existing.id, fields), created: false }, eventIds: [] };
    }
    const record = await insertKycRecord(trx, { id: newId('kyc'), merchant_id: merchant.id, customer_id: customer.id, ...fields });
    const event = await recordEvent(trx, merchant, 'customer.kyc.created', customerEventData({ customer, kyc: presentKycRecord(record) }), {
      customerId: customer.id,
    });
    return { result: { record, created: true }, eventIds: event.enabled ? [event.id] : [] };
  });
  await dispatchCommitted(deps, eventIds);
  // Identifiers only: the submission itself stays out of the logs.
  deps.logger.debug({ merchant_id: merchant.id, customer_id: body.customer_id, kyc_record_id: result.record.id, created: result.created }, 'kyc record upserted');
  return result;
}

/** The contract's KYC record; last_four_ssn is picked out by omission and can never be echoed. */
export function presentKycRecord(row: KycRecordRow) {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    phone_number: row.phone_number,
    date_of_birth: row.date_of_birth,
    address_line_1: row.address_line_1,
    address_line_2: row.address_line_2,
    city: row.city,
    state: row.state,
    postal_code: row.postal_code,
    country: row.country,
    provider: row.provider,
    verified: row.verified,
  };
}
