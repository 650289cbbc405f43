import {
  FAILURE_MESSAGES,
  InvalidPaymentMethod,
  cardBrand,
  createSandboxProcessor,
  getProcessor,
  luhnValid,
  type PaymentType,
  type Processor,
  type TokenizeInput,
  WALLET_PAYMENT_TYPES,
} from '../../src/processors';

const KEY = 'fingerprint-key';
const now = () => new Date('2030-06-15T12:00:00Z');
const alpha = createSandboxProcessor('sandbox_alpha', { now });
const gamma = createSandboxProcessor('sandbox_gamma', { now });

const card = (number: string, extra: Partial<{ exp_month: number; exp_year: number; cvc: string }> = {}) =>
  ({ type: 'card', card: { number, exp_month: 12, exp_year: 2031, cvc: '123', ...extra } }) as const;
const bank = (account_number: string): TokenizeInput => ({
  type: 'bank_account',
  bank_account: { routing_number: '110000000', account_number, account_type: 'checking' },
});
const crypto = (address: string): TokenizeInput => ({
  type: 'crypto_wallet',
  crypto_wallet: { address, network: 'ethereum' },
});

async function chargeWith(processor: Processor, input: TokenizeInput, transaction_type: 'credit' | 'debit' = 'credit') {
  const method = await processor.tokenize(input, KEY, 'sandbox');
  const outcome = await processor.charge({
    token: method.processor_token,
    payment_type: method.payment_type,
    amount_cents: 2500,
    transaction_type,
  });
  return { method, outcome };
}

type Charged = Awaited<ReturnType<typeof chargeWith>>;
const refundOf = (processor: Processor, { method, outcome }: Charged) =>
  processor.refund({ processor_charge_id: outcome.processor_charge_id, amount_cents: 2500, token: method.processor_token });

async function refusal(input: TokenizeInput): Promise<InvalidPaymentMethod> {
  const error = await alpha.tokenize(input, KEY, 'sandbox').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidPaymentMethod);
  return error as InvalidPaymentMethod;
}

describe('test cards', () => {
  it('4242424242424242 succeeds with card-network results', async () => {
    const { method, outcome } = await chargeWith(alpha, card('4242424242424242'));
    expect(method.details.card).toEqual({ brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2031, funding: 'credit' });
    expect(outcome).toMatchObject({ kind: 'succeeded', avs_result: 'Y', cvv_result: 'M', threeds: null });
    expect(outcome.network_authorization_code).toMatch(/^[0-9A-Z]{6}$/);
    expect(outcome.processor_charge_id).toMatch(/^sandbox_alpha_[0-9a-f]+$/);
    expect(outcome.failure_code).toBeUndefined();
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
  ] as const)('%s fails with %s', async (number, code) => {
    const { outcome } = await chargeWith(alpha, card(number));
    expect(outcome).toMatchObject({ kind: 'failed', failure_code: code, failure_message: FAILURE_MESSAGES[code] });
    expect(outcome.network_authorization_code).toBeNull();
  });

  it('4000000000003220 succeeds after 3D Secure', async () => {
    const { outcome } = await chargeWith(alpha, card('4000000000003220'));
    expect(outcome.kind).toBe('succeeded');
    expect(outcome.threeds).toEqual({ version: '2.2.0', authenticated: true, eci: '05' });
  });

  it('any other Luhn-valid number succeeds', async () => {
    for (const number of ['4111 1111 1111 1111', '5555-5555-5555-4444', '6011111111111117']) {
      expect((await chargeWith(alpha, card(number))).outcome.kind).toBe('succeeded');
    }
  });

  it('4000000000005126 charges, but its refund is declined', async () => {
    const charged = await chargeWith(alpha, card('4000000000005126'));
    expect(charged.outcome.kind).toBe('succeeded');
    expect(await refundOf(alpha, charged)).toEqual({ ok: false, responsetext: 'Refund amount exceeds transaction balance' });
  });
});

describe('merchant-initiated charges (subscription renewals)', () => {
  it('4000000000000341 succeeds while the customer pays and declines every renewal', async () => {
    const { method, outcome } = await chargeWith(alpha, card('4000000000000341'));
    expect(outcome.kind).toBe('succeeded');
    const renewal = await alpha.charge({ token: method.processor_token, payment_type: method.payment_type, amount_cents: 2500, transaction_type: 'credit', merchant_initiated: true });
    expect(renewal).toMatchObject({ kind: 'failed', failure_code: 'card_declined' });
  });

  it('other cards renew as they charge', async () => {
    const method = await alpha.tokenize(card('4242424242424242'), KEY, 'sandbox');
    const renewal = await alpha.charge({ token: method.processor_token, payment_type: method.payment_type, amount_cents: 2500, transaction_type: 'credit', merchant_initiated: true });
    expect(renewal.kind).toBe('succeeded');
  });
});

describe('tokenize refusals (before any charge exists)', () => {
  it('refuses a Luhn-invalid number', async () => {
    expect((await refusal(card('4242424242424241'))).code).toBe('invalid_number');
    expect((await refusal(card('4242'))).code).toBe('invalid_number');
  });

  it('refuses a past or impossible expiry, accepts the current month', async () => {
    expect((await refusal(card('4242424242424242', { exp_year: 2030, exp_month: 5 }))).code).toBe('invalid_expiry');
    expect((await refusal(card('4242424242424242', { exp_month: 13 }))).code).toBe('invalid_expiry');
    await expect(alpha.tokenize(card('4242424242424242', { exp_year: 2030, exp_month: 6 }), KEY, 'sandbox')).resolves.toBeDefined();
    const twoDigit = await alpha.tokenize(card('4242424242424242', { exp_year: 31 }), KEY, 'sandbox');
    expect(twoDigit.details.card?.exp_year).toBe(2031);
  });

  it('refuses a bad cvc, wanting 4 digits for amex', async () => {
    expect((await refusal(card('4242424242424242', { cvc: '12' }))).code).toBe('invalid_cvc');
    expect((await refusal(card('378282246310005', { cvc: '123' }))).code).toBe('invalid_cvc');
    await expect(alpha.tokenize(card('378282246310005', { cvc: '1234' }), KEY, 'sandbox')).resolves.toBeDefined();
  });

  it('refuses malformed bank, crypto and wallet details', async () => {
    const badRouting = { routing_number: '12', account_number: '000123456789', account_type: 'checking' } as const;
    expect((await refusal({ type: 'bank_account', bank_account: badRouting })).code).toBe('invalid_bank_account');
    expect((await refusal(bank('12'))).code).toBe('invalid_bank_account');
    expect((await refusal(crypto('not an address'))).code).toBe('invalid_crypto_wallet');
    expect((await refusal({ type: 'apple_pay', token: '' })).code).toBe('invalid_token');
    expect((await refusal({ type: 'wire', token: 'x' } as unknown as TokenizeInput)).code).toBe('unsupported_payment_type');
  });
});

describe('bank and crypto', () => {
  it.each([
    ['bank', bank('000123456789'), 'succeeded', undefined],
    ['bank ending 0002', bank('000123450002'), 'failed', 'account_closed'],
    ['crypto', crypto('0x52908400098527886E0F7030069857D2E4169EE7'), 'succeeded', undefined],
    ['crypto ending dead', crypto('0x000000000000000000000000000000000000dEaD'), 'failed', 'transaction_rejected'],
  ])('%s goes pending, then settles %s', async (_label, input, settled, code) => {
    const { method, outcome } = await chargeWith(alpha, input);
    expect(outcome).toMatchObject({ kind: 'pending', avs_result: null, cvv_result: null, threeds: null });
    expect(outcome.network_authorization_code).toBeNull();
    const settlement = await alpha.settle({
      processor_charge_id: outcome.processor_charge_id,
      token: method.processor_token,
      payment_type: method.payment_type,
    });
    expect(settlement.kind).toBe(settled);
    expect(settlement.failure_code).toBe(code);
  });

  it('shows only the last four digits of an account', async () => {
    const method = await alpha.tokenize(bank('000123456789'), KEY, 'sandbox');
    expect(method.details).toEqual({
      bank_account: { last4: '6789', routing_number: '110000000', account_type: 'checking' },
    });
  });

  it('has no refund path', async () => {
    expect(await refundOf(alpha, await chargeWith(alpha, bank('000123456789')))).toEqual({
      ok: false,
      responsetext: 'Only card charges can be refunded.',
    });
  });
});

describe('wallet tokens', () => {
  it.each(WALLET_PAYMENT_TYPES)('%s succeeds like a card, without AVS or CVV', async (type) => {
    const { method, outcome } = await chargeWith(alpha, { type, token: `tok_${type}_123` });
    expect(method.payment_type).toBe(type);
    expect(method.details.card?.last4).toMatch(/^\d{4}$/);
    expect(outcome).toMatchObject({ kind: 'succeeded', avs_result: null, cvv_result: null, threeds: null });
  });
});

describe('payouts (withdrawals)', () => {
  const payout = async (input: TokenizeInput) => {
    const method = await alpha.tokenize(input, KEY, 'sandbox');
    return alpha.payout({ token: method.processor_token, payment_type: method.payment_type, amount_cents: 5000 });
  };

  it('follows the card rules, without 3D Secure', async () => {
    expect((await payout(card('4242424242424242'))).kind).toBe('succeeded');
    expect(await payout(card('4000000000000002'))).toMatchObject({ kind: 'failed', failure_code: 'card_declined' });
    expect((await payout(card('4000000000003220'))).threeds).toBeNull();
  });

  it('sends bank and crypto payouts pending', async () => {
    expect((await payout(bank('000123456789'))).kind).toBe('pending');
    expect((await payout(crypto('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'))).kind).toBe('pending');
  });
});

describe('refunds', () => {
  it('alpha and beta refund cards; gamma cannot', async () => {
    expect(getProcessor('sandbox_alpha').supportsRefunds).toBe(true);
    expect(getProcessor('sandbox_beta').supportsRefunds).toBe(true);
    expect(getProcessor('sandbox_gamma').supportsRefunds).toBe(false);
    const charged = await chargeWith(alpha, card('4242424242424242'));
    expect(await refundOf(alpha, charged)).toEqual({
      ok: true,
      processor_refund_id: expect.stringMatching(/^sandbox_alpha_rf_[0-9a-f]+$/),
    });
    expect(await refundOf(gamma, charged)).toEqual({ ok: false, responsetext: 'Refunds through sandbox_gamma are not possible.' });
  });
});

describe('processor contract', () => {
  it('gives one shared instance per name and refuses unknown names', () => {
    expect(getProcessor('sandbox_beta')).toBe(getProcessor('sandbox_beta'));
    expect(getProcessor('sandbox_beta').name).toBe('sandbox_beta');
    expect(() => getProcessor('stripe' as never)).toThrow(/Unknown card processor/);
  });

  it('answers a retried call with the same idempotency key the same way', async () => {
    const method = await alpha.tokenize(card('4242424242424242'), KEY, 'sandbox');
    const request = { token: method.processor_token, payment_type: 'card', amount_cents: 100, transaction_type: 'credit' } as const;
    const first = await alpha.charge({ ...request, idempotency_key: 'ch_1' });
    expect(await alpha.charge({ ...request, idempotency_key: 'ch_1' })).toEqual(first);
    const other = await alpha.charge({ ...request, idempotency_key: 'ch_2' });
    expect(other.processor_charge_id).not.toBe(first.processor_charge_id);
  });

  it('fails, rather than throws, a charge with a token it did not issue or of the wrong rail', async () => {
    const bankMethod = await alpha.tokenize(bank('000123456789'), KEY, 'sandbox');
    const foreign: Array<[string, PaymentType]> = [['tok_foreign', 'card'], [bankMethod.processor_token, 'card']];
    for (const [token, payment_type] of foreign) {
      const outcome = await alpha.charge({ token, payment_type, amount_cents: 100, transaction_type: 'credit' });
      expect(outcome).toMatchObject({ kind: 'failed', failure_code: 'processing_error' });
    }
  });

  it('refuses a non-positive or fractional amount', async () => {
    const method = await alpha.tokenize(card('4242424242424242'), KEY, 'sandbox');
    for (const amount_cents of [0, -5, 1.5]) {
      const request = { token: method.processor_token, payment_type: 'card', amount_cents, transaction_type: 'credit' } as const;
      await expect(alpha.charge(request)).rejects.toThrow(RangeError);
    }
  });
});

describe('fingerprints and stored data', () => {
  it('is stable per instrument and key, and differs across instruments, expiries and keys', async () => {
    const fp = async (input: TokenizeInput, key = KEY) => (await alpha.tokenize(input, key, 'sandbox')).fingerprint;
    const a = await fp(card('4242424242424242'));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(await fp(card('4242 4242 4242 4242'))).toBe(a);
    expect(await getProcessor('sandbox_beta').tokenize(card('4242424242424242'), KEY, 'sandbox').then((m) => m.fingerprint)).toBe(a);
    expect(await fp(card('4242424242424242', { exp_year: 2032 }))).not.toBe(a);
    expect(await fp(card('4111111111111111'))).not.toBe(a);
    expect(await fp(card('4242424242424242'), 'other-key')).not.toBe(a);
    expect(await fp(bank('000123456789'))).toBe(await fp(bank('000123456789')));
    const mixedCase = await fp(crypto('0xABCDEF0123456789abcdef0123456789ABCDEF01'));
    expect(mixedCase).toBe(await fp(crypto('0xabcdef0123456789ABCDEF0123456789abcdef01')));
  });

  it('issues a fresh opaque token per tokenize', async () => {
    const one = await alpha.tokenize(card('4242424242424242'), KEY, 'sandbox');
    const two = await alpha.tokenize(card('4242424242424242'), KEY, 'sandbox');
    expect(one.processor_token).toMatch(/^sbx_[a-z]+_[0-9a-f]{24}$/);
    expect(one.processor_token).not.toBe(two.processor_token);
  });

  it.each([
    ['card', card('4000000000003220'), '4000000000003220'],
    ['spaced card', card('4242 4242 4242 4242'), '4242424242424242'],
    ['bank', bank('000123456789'), '000123456789'],
    ['wallet', { type: 'apple_pay', token: 'tok_apple_secret_42' } as TokenizeInput, 'tok_apple_secret_42'],
  ])('never puts the full %s number in the tokenized method or the charge outcome', async (_label, input, full) => {
    const { method, outcome } = await chargeWith(alpha, input);
    expect(JSON.stringify(method)).not.toContain(full);
    expect(JSON.stringify(outcome)).not.toContain(full);
    expect(JSON.stringify(method)).not.toContain('"123"'); // the cvc
  });
});

describe('instrument helpers', () => {
  it('checks Luhn and detects brands', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('6011111111111117')).toBe('discover');
    expect(cardBrand('3566002020360505')).toBe('other');
  });
});
