import { approvalRefusal, type ApprovalCheckInput } from '../../src/checkouts/review-rule';

const NOW = new Date('2026-11-21T12:00:00Z');
const card = (exp_year: number, exp_month: number) => ({ payment_type: 'card' as const, details: { card: { exp_year, exp_month } } });
const base = (over: Partial<ApprovalCheckInput> = {}): ApprovalCheckInput => ({
  checkoutType: 'withdrawal',
  environment: 'production',
  settings: { kyc_required_for: ['withdrawal'], payment_methods: { deposit: ['credit_card'], withdrawal: ['credit_card', 'bank_account'] } },
  paymentOptions: null,
  customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: null },
  latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: true },
  paymentMethod: card(2026, 11),
  destinationAllowed: true,
  now: NOW,
  ...over,
});

describe('the re-checks of an approval', () => {
  it('lets an approval through when nothing changed, a card valid to the end of its expiry month included', () => {
    expect(approvalRefusal(base())).toBeNull();
    expect(approvalRefusal(base({ paymentMethod: { payment_type: 'bank_account', details: {} } }))).toBeNull();
  });

  it('refuses a restricted customer even where withdrawals are not KYC-gated', () => {
    const restricted = { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME' };
    expect(approvalRefusal(base({ customer: restricted, settings: { ...base().settings, kyc_required_for: [] } }))).toContain('KYC_DOES_NOT_MATCH_PROFILE_NAME');
  });

  it.each([
    ['no KYC record', { latestKyc: undefined }, 'kyc_not_verified'],
    ['an unverified latest record', { latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: false } }, 'kyc_not_verified'],
    ['a verified name that no longer matches (production)', { latestKyc: { first_name: 'Bob', last_name: 'Lovelace', verified: true } }, 'kyc_name_mismatch'],
  ])('refuses what the KYC gate refuses now: %s', (_what, over, reason) => {
    expect(approvalRefusal(base(over))).toContain(reason);
  });

  it('refuses a method the checkout no longer offers, and a card past its expiry month', () => {
    expect(approvalRefusal(base({ settings: { ...base().settings, payment_methods: { deposit: [], withdrawal: ['bank_account'] } } }))).toContain('no longer offers');
    expect(approvalRefusal(base({ paymentOptions: ['bank_account'] }))).toContain('no longer offers');
    expect(approvalRefusal(base({ paymentMethod: card(2026, 10) }))).toContain('expired');
    expect(approvalRefusal(base({ destinationAllowed: false }))).toContain('successful deposit');
  });
});
