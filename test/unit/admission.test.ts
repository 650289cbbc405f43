import {
  ADMISSION_POLICY,
  BLOCK_REASONS,
  ENTRY_POINTS,
  GATES,
  evaluateAdmission,
  gateApplies,
  type AdmissionFacts,
  type EntryPoint,
  type Gate,
} from '../../src/checkouts/admission';
import { CHECKOUT_TYPES, withDefaultSettings, type CheckoutType } from '../../src/domain/settings';
import { checkInstrument, numberKey } from '../../src/processors/instruments';

const NOW = new Date('2026-11-21T12:00:00Z');
const card = (exp_year: number, exp_month: number) => ({ payment_type: 'card' as const, details: { card: { exp_year, exp_month } } });

/** Facts every gate passes, with every rule switched on for both checkout types. */
const passing = (entry: EntryPoint, checkoutType: CheckoutType, over: Partial<AdmissionFacts> = {}): AdmissionFacts => ({
  entry,
  checkoutType,
  environment: 'production',
  settings: {
    kyc_required_for: ['deposit', 'withdrawal'],
    geo_required_for: ['deposit', 'withdrawal'],
    payment_methods: { deposit: ['credit_card'], withdrawal: ['credit_card'] },
    review: { enabled: true, min_amount_cents: 1000 },
  },
  customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: null },
  latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: true },
  latestGeoCheck: { passed: true, checked_at: new Date(NOW.getTime() - 60_000) },
  geoMaxAgeMs: 30 * 60_000,
  paymentOptions: null,
  paymentMethod: card(2030, 12),
  destinationAllowed: true,
  amountCents: 500,
  reviewExists: false,
  now: NOW,
  ...over,
});

/**
 * For each gate evaluated over facts: facts that break only that gate, and the reason it refuses
 * with, per checkout type (undefined: the gate cannot refuse that type).
 */
const BREAKERS: Partial<Record<Gate, { facts: Partial<AdmissionFacts>; reason: Partial<Record<CheckoutType, string>> }>> = {
  restriction: { facts: { customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME' } }, reason: { deposit: 'customer_restricted', withdrawal: 'customer_restricted' } },
  kyc: { facts: { latestKyc: undefined }, reason: { deposit: 'kyc_not_verified', withdrawal: 'kyc_not_verified' } },
  geo: { facts: { latestGeoCheck: undefined }, reason: { deposit: 'geo_check_missing', withdrawal: 'geo_check_missing' } },
  method_offered: { facts: { paymentOptions: ['bank_account'] }, reason: { deposit: 'method_not_offered', withdrawal: 'method_not_offered' } },
  withdrawal_destination: { facts: { destinationAllowed: false }, reason: { withdrawal: 'destination_not_allowed' } },
  card_expiry: { facts: { paymentMethod: card(2026, 10) }, reason: { deposit: 'card_expired', withdrawal: 'card_expired' } },
  one_review: { facts: { amountCents: 1500, reviewExists: true }, reason: { withdrawal: 'review_spent' } },
};

/** Which entry points each gate covers: written out here, independently of the policy's table. */
const EXPECTED_ENTRIES: Record<Gate, readonly EntryPoint[]> = {
  restriction: ['wallet_attempt', 'review_approval', 'renewal'],
  kyc: ['wallet_attempt', 'review_approval', 'renewal'],
  geo: ['wallet_attempt'],
  method_offered: ['wallet_attempt', 'review_approval'],
  withdrawal_destination: ['wallet_attempt', 'review_approval'],
  card_expiry: ['wallet_attempt', 'review_approval'],
  velocity: ['wallet_attempt'],
  attempt_cap: ['wallet_attempt'],
  review_threshold: ['wallet_attempt'],
  one_review: ['wallet_attempt'],
  deadline: ['wallet_attempt', 'review_approval'],
};

describe('the admission policy: one table of gates for every entry point', () => {
  it('lists every gate once, in the documented order, each with the entry points it covers', () => {
    expect(ADMISSION_POLICY.map((rule) => rule.gate)).toEqual([...GATES]);
    for (const gate of GATES) for (const entry of ENTRY_POINTS) expect([gate, entry, gateApplies(gate, entry)]).toEqual([gate, entry, EXPECTED_ENTRIES[gate].includes(entry)]);
  });

  it('leaves the gates that guard a write to the storage statement that makes it', () => {
    const byStorage = ADMISSION_POLICY.filter((rule) => typeof rule.check !== 'function').map((rule) => rule.gate);
    expect(byStorage).toEqual(['velocity', 'attempt_cap', 'deadline']);
  });

  const cases = ENTRY_POINTS.flatMap((entry) => CHECKOUT_TYPES.flatMap((type) => Object.keys(BREAKERS).map((gate) => [entry, gate as Gate, type] as const)));
  it.each(cases)('%s × %s × %s: refused by that gate exactly where it applies', (entry, gate, type) => {
    expect(evaluateAdmission(passing(entry, type))).toEqual({ admitted: true, needsReview: false });
    const breaker = BREAKERS[gate]!;
    const expected = gateApplies(gate, entry) ? breaker.reason[type] : undefined;
    const decision = evaluateAdmission(passing(entry, type, breaker.facts));
    if (expected === undefined) expect(decision).toEqual({ admitted: true, needsReview: expect.any(Boolean) });
    else expect(decision).toMatchObject({ admitted: false, refusal: { gate, reason: expected, blocksCheckout: (BLOCK_REASONS as readonly string[]).includes(expected) } });
  });

  it.each(ENTRY_POINTS.flatMap((entry) => CHECKOUT_TYPES.map((type) => [entry, type] as const)))(
    'a restricted customer is refused at %s for a %s, whatever the KYC and geo settings say',
    (entry, type) => {
      const facts = passing(entry, type, {
        customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: 'X' },
        settings: { kyc_required_for: [], geo_required_for: [], payment_methods: { deposit: ['credit_card'], withdrawal: ['credit_card'] }, review: { enabled: false, min_amount_cents: 1 } },
      });
      expect(evaluateAdmission(facts)).toEqual({ admitted: false, refusal: { gate: 'restriction', reason: 'customer_restricted', blocksCheckout: true } });
    },
  );

  it('evaluates in order: the first failing gate decides', () => {
    const everythingWrong = passing('wallet_attempt', 'withdrawal', {
      customer: { first_name: 'Ada', last_name: 'Lovelace', restriction_reason: 'X' },
      latestKyc: undefined,
      latestGeoCheck: undefined,
      destinationAllowed: false,
      paymentMethod: card(2026, 10),
    });
    expect(evaluateAdmission(everythingWrong)).toMatchObject({ refusal: { gate: 'restriction' } });
    expect(evaluateAdmission({ ...everythingWrong, customer: { ...everythingWrong.customer, restriction_reason: null } })).toMatchObject({ refusal: { gate: 'kyc' } });
  });
});

describe('the review threshold', () => {
  it('sends a withdrawal at or above the threshold to review at an attempt, never at an approval or a renewal', () => {
    expect(evaluateAdmission(passing('wallet_attempt', 'withdrawal', { amountCents: 1000 }))).toEqual({ admitted: true, needsReview: true });
    expect(evaluateAdmission(passing('wallet_attempt', 'withdrawal', { amountCents: 999 }))).toEqual({ admitted: true, needsReview: false });
    expect(evaluateAdmission(passing('wallet_attempt', 'deposit', { amountCents: 5000 }))).toEqual({ admitted: true, needsReview: false });
    expect(evaluateAdmission(passing('review_approval', 'withdrawal', { amountCents: 5000, reviewExists: true }))).toEqual({ admitted: true, needsReview: false });
  });
});

describe('the customer gates (KYC, geo)', () => {
  const base = (over: Partial<AdmissionFacts> = {}) => passing('wallet_attempt', 'deposit', over);

  it('ignores KYC and geo for checkout types that do not require them', () => {
    const settings = { ...base().settings, kyc_required_for: [], geo_required_for: [] };
    expect(evaluateAdmission(base({ settings, latestKyc: undefined, latestGeoCheck: undefined }))).toEqual({ admitted: true, needsReview: false });
  });

  it.each([
    ['an unverified latest record', { latestKyc: { first_name: 'Ada', last_name: 'Lovelace', verified: false } }, 'kyc_not_verified'],
    ['a geo check over 30 minutes old', { latestGeoCheck: { passed: true, checked_at: new Date(NOW.getTime() - 31 * 60_000) } }, 'geo_check_stale'],
    ['a failed geo check', { latestGeoCheck: { passed: false, checked_at: NOW } }, 'geo_check_failed'],
  ] as const)('blocks %s', (_label, over, reason) => {
    expect(evaluateAdmission(base(over))).toEqual({ admitted: false, refusal: { gate: reason.startsWith('kyc') ? 'kyc' : 'geo', reason, blocksCheckout: true } });
  });

  it('restricts a production customer whose verified name differs from the profile, at every entry point', () => {
    for (const entry of ENTRY_POINTS) {
      expect(evaluateAdmission(passing(entry, 'deposit', { latestKyc: { first_name: 'Augusta', last_name: 'King', verified: true } }))).toEqual({
        admitted: false,
        refusal: { gate: 'kyc', reason: 'kyc_name_mismatch', restrictWith: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', blocksCheckout: true },
      });
    }
  });

  it('matches names regardless of case and surrounding spaces, and skips the name match in sandbox', () => {
    expect(evaluateAdmission(base({ latestKyc: { first_name: ' ada ', last_name: 'LOVELACE', verified: true } }))).toEqual({ admitted: true, needsReview: false });
    expect(evaluateAdmission(base({ environment: 'sandbox', latestKyc: { first_name: 'Augusta', last_name: 'King', verified: true } }))).toEqual({ admitted: true, needsReview: false });
  });

  it('lets a card through to the end of its expiry month', () => {
    expect(evaluateAdmission(base({ paymentMethod: card(2026, 11) }))).toEqual({ admitted: true, needsReview: false });
  });
});

describe('velocity keys', () => {
  const KEY = 'fingerprint-key';
  const typed = (number: string, exp_month: number, exp_year: number) =>
    checkInstrument({ type: 'card', card: { number, exp_month, exp_year, cvc: '123' } }, KEY, NOW);

  it('count a card by its number alone, while the fingerprint that de-duplicates saved methods keeps the expiry', () => {
    const december = typed('4000 0000 0000 0002', 12, 2030);
    const others = [typed('4000000000000002', 11, 2030), typed('4000-0000-0000-0002', 10, 2030), typed('4000000000000002', 9, 2031)];
    for (const other of others) {
      expect(numberKey(KEY, other)).toBe(numberKey(KEY, december));
      expect(other.fingerprint).not.toBe(december.fingerprint);
    }
    expect(numberKey(KEY, typed('4242424242424242', 12, 2030))).not.toBe(numberKey(KEY, december));
    // Keyed: useless without the key, and not the fingerprint itself.
    expect(numberKey('another-key', december)).not.toBe(numberKey(KEY, december));
    expect(numberKey(KEY, december)).not.toBe(december.fingerprint);
  });

  it('count other instruments by their fingerprint', () => {
    const bank = checkInstrument({ type: 'bank_account', bank_account: { routing_number: '110000000', account_number: '000123456789', account_type: 'checking' } }, KEY, NOW);
    expect(numberKey(KEY, bank)).toBe(bank.fingerprint);
  });
});

describe('velocity settings', () => {
  it('read customer_attempts_per_hour as null for a merchant whose stored limits predate it', () => {
    const stored = { velocity_limits: { enabled: true, card_attempts_per_hour: 3, ip_attempts_per_hour: 7 } } as never;
    expect(withDefaultSettings(stored, 'production').velocity_limits).toEqual({ enabled: true, card_attempts_per_hour: 3, ip_attempts_per_hour: 7, customer_attempts_per_hour: null });
    expect(withDefaultSettings({}, 'sandbox').velocity_limits).toEqual({ enabled: false, card_attempts_per_hour: 10, ip_attempts_per_hour: 30, customer_attempts_per_hour: null });
  });
});
