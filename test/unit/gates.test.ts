import { evaluateGates, type GateInput } from '../../src/checkouts/gates';

const NOW = new Date('2026-11-21T12:00:00Z');
const base = (over: Partial<GateInput> = {}): GateInput => ({
  checkoutType: 'deposit',
  environment: 'production',
  settings: { kyc_required_for: ['deposit'], geo_required_for: ['deposit'] },
  customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: null },
  latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: true },
  latestGeoCheck: { passed: true, checked_at: new Date(NOW.getTime() - 60_000) },
  geoMaxAgeMs: 30 * 60_000,
  now: NOW,
  ...over,
});

describe('checkout gates', () => {
  it('passes a verified, matching, located customer', () => {
    expect(evaluateGates(base())).toEqual({ blocked: false });
  });

  it('ignores gates for checkout types that do not require them', () => {
    expect(evaluateGates(base({ checkoutType: 'withdrawal', latestKyc: undefined, latestGeoCheck: undefined }))).toEqual({ blocked: false });
  });

  it.each([
    ['a restricted customer', { customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: 'X' } }, 'customer_restricted'],
    ['no KYC record', { latestKyc: undefined }, 'kyc_not_verified'],
    ['an unverified latest record', { latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: false } }, 'kyc_not_verified'],
    ['no geo check', { latestGeoCheck: undefined }, 'geo_check_missing'],
    ['a geo check over 30 minutes old', { latestGeoCheck: { passed: true, checked_at: new Date(NOW.getTime() - 31 * 60_000) } }, 'geo_check_stale'],
    ['a failed geo check', { latestGeoCheck: { passed: false, checked_at: NOW } }, 'geo_check_failed'],
  ] as const)('blocks %s', (_label, over, reason) => {
    expect(evaluateGates(base(over as Partial<GateInput>))).toEqual({ blocked: true, reason });
  });

  it('restricts a production customer whose verified name differs from the profile', () => {
    expect(evaluateGates(base({ latestKyc: { first_name: 'Augusta', last_name: 'King', verified: true } }))).toEqual({
      blocked: true,
      reason: 'kyc_name_mismatch',
      restrictWith: 'KYC_DOES_NOT_MATCH_PROFILE_NAME',
    });
  });

  it('matches names regardless of case and surrounding spaces, and skips the name match in sandbox', () => {
    expect(evaluateGates(base({ latestKyc: { first_name: ' ada ', last_name: 'LOVELACE', verified: true } }))).toEqual({ blocked: false });
    expect(evaluateGates(base({ environment: 'sandbox', latestKyc: { first_name: 'Augusta', last_name: 'King', verified: true } }))).toEqual({ blocked: false });
  });
});
