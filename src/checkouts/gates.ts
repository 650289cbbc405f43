import type { MerchantSettings } from '../domain/settings';
import { KYC_NAME_MISMATCH } from '../customers/restrictions';

/** Why a checkout was blocked; carried in checkout.terminally_failed as `reason`. */
export type BlockReason =
  | 'customer_restricted'
  | 'kyc_not_verified'
  | 'kyc_name_mismatch'
  | 'geo_check_missing'
  | 'geo_check_stale'
  | 'geo_check_failed';

export type GateDecision = { blocked: false } | { blocked: true; reason: BlockReason; restrictWith?: string };

export interface GateInput {
  checkoutType: 'deposit' | 'withdrawal';
  environment: 'sandbox' | 'production';
  settings: Pick<MerchantSettings, 'kyc_required_for' | 'geo_required_for'>;
  customer: { first_name: string | null; last_name: string | null; restriction_reason: string | null };
  /** The customer's most recent KYC record (an unverified newer one hides an older verified one). */
  latestKyc?: { first_name: string; last_name: string; verified: boolean };
  latestGeoCheck?: { passed: boolean; checked_at: Date };
  geoMaxAgeMs: number;
  now: Date;
}

/** Names compare as people write them: case, accents' spacing and surrounding blanks aside. */
function sameName(a: string | null, b: string | null): boolean {
  const norm = (s: string | null) => (s ?? '').normalize('NFKC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');
  return norm(a) === norm(b);
}

/**
 * The geo, KYC and fraud gates a checkout must pass before any charge, as one pure function.
 * KYC applies to the checkout types in kyc_required_for: a restricted customer or one without a
 * verified record is blocked; in production a verified name that differs from the profile also
 * restricts the customer. Geo applies to geo_required_for: the latest check must exist, be under
 * 30 minutes old and have passed.
 */
export function evaluateGates(input: GateInput): GateDecision {
  const { settings, checkoutType } = input;
  if (settings.kyc_required_for.includes(checkoutType)) {
    if (input.customer.restriction_reason !== null) return { blocked: true, reason: 'customer_restricted' };
    if (!input.latestKyc || !input.latestKyc.verified) return { blocked: true, reason: 'kyc_not_verified' };
    const matches = sameName(input.latestKyc.first_name, input.customer.first_name) && sameName(input.latestKyc.last_name, input.customer.last_name);
    if (input.environment === 'production' && !matches) return { blocked: true, reason: 'kyc_name_mismatch', restrictWith: KYC_NAME_MISMATCH };
  }
  if (settings.geo_required_for.includes(checkoutType)) {
    const check = input.latestGeoCheck;
    if (!check) return { blocked: true, reason: 'geo_check_missing' };
    // Valid while under 30 minutes old, the same rule the device-ping cache uses.
    if (input.now.getTime() - check.checked_at.getTime() >= input.geoMaxAgeMs) return { blocked: true, reason: 'geo_check_stale' };
    if (!check.passed) return { blocked: true, reason: 'geo_check_failed' };
  }
  return { blocked: false };
}
