import type { Db } from '../storage/db';
import { setBlockEvidence, setRestrictionEvidence, setReviewEvidence, type Evidence } from '../storage/evidence';
import { GEO_CHECK_MAX_AGE_MS, latestGeoCheck } from '../storage/geo-checks';
import { latestKycRecord } from '../storage/kyc-records';
import type { MerchantRow } from '../storage/merchants';

/**
 * What a review, block or restriction was decided on: the customer's most recent KYC record and
 * geo check (the same reads the checkout gates make), the rule and its thresholds. Written in
 * the decision's own transaction, so the evidence is the state the decision saw.
 */
async function identityInputs(db: Db, merchantId: string, customerId: string): Promise<Evidence> {
  // Sequential: inside a transaction there is one connection.
  const kyc = await latestKycRecord(db, merchantId, customerId);
  const geo = await latestGeoCheck(db, merchantId, customerId);
  return {
    kyc_record: kyc
      ? { id: kyc.id, provider: kyc.provider, verified: kyc.verified, first_name: kyc.first_name, last_name: kyc.last_name, state: kyc.state, country: kyc.country, updated_at: kyc.updated_at.toISOString() }
      : null,
    geo_check: geo
      ? { id: geo.id, passed: geo.passed, region: geo.region, country: geo.country, municipality: geo.municipality, checked_at: geo.checked_at.toISOString() }
      : null,
  };
}

type Merchant = Pick<MerchantRow, 'id' | 'environment' | 'settings'>;

/** A withdrawal paused for review: the review rule, the amount, and the identity evidence. */
export async function recordReviewEvidence(db: Db, merchant: Merchant, review: { id: string; customer_id: string; amount_cents: number }): Promise<void> {
  await setReviewEvidence(db, review.id, {
    rule: { name: 'review', enabled: merchant.settings.review.enabled, min_amount_cents: merchant.settings.review.min_amount_cents },
    amount_cents: review.amount_cents,
    ...(await identityInputs(db, merchant.id, review.customer_id)),
  });
}

/** A checkout blocked by a gate: the reason, the gate settings and thresholds, and the identity evidence. */
export async function recordBlockEvidence(db: Db, merchant: Merchant, checkout: { id: string; customer_id: string; type: string }, reason: string): Promise<void> {
  await setBlockEvidence(db, checkout.id, {
    reason,
    rule: {
      checkout_type: checkout.type,
      environment: merchant.environment,
      kyc_required_for: merchant.settings.kyc_required_for,
      geo_required_for: merchant.settings.geo_required_for,
      geo_check_max_age_seconds: GEO_CHECK_MAX_AGE_MS / 1000,
      supported_regions_count: merchant.settings.supported_regions.length,
    },
    ...(await identityInputs(db, merchant.id, checkout.customer_id)),
  });
}

/** A customer restricted (the KYC name match): the reason, the names compared and the KYC record. */
export async function recordRestrictionEvidence(db: Db, merchant: Merchant, customer: { id: string; first_name: string | null; last_name: string | null }, reason: string): Promise<void> {
  await setRestrictionEvidence(db, merchant.id, customer.id, {
    reason,
    rule: { name: 'kyc_name_match', environment: merchant.environment },
    profile_name: { first_name: customer.first_name, last_name: customer.last_name },
    ...(await identityInputs(db, merchant.id, customer.id)),
  });
}
