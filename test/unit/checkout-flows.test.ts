import {
  FLOW_PARAMETERS,
  acceptPaymentOptions,
  detectFlow,
  flowNotEnabled,
  isRefusal,
  lineItemKind,
  lineItemsTotal,
  offeredPaymentMethods,
  visibleSavedMethods,
  type FlowShape,
} from '../../src/checkouts/flows';
import { MAX_AMOUNT_CENTS } from '../../src/domain/limits';
import { CHECKOUT_FLOWS, PAYMENT_METHODS, type PaymentMethodId } from '../../src/domain/settings';

const item = { name: 'Hat', price_cents: 500, quantity: 1 };
const sub = { interval: 'month' as const, interval_count: 3 };

describe('detectFlow (rules 1 and 2)', () => {
  // The contract's flow table, one row each.
  it.each<[FlowShape, string]>([
    [{ type: 'deposit' }, 'deposit'],
    [{ type: 'deposit', fixed_amount_cents: 100 }, 'preset_deposit'],
    [{ type: 'deposit', line_items: [item] }, 'purchase'],
    [{ type: 'deposit', line_items: [item], subscription_data: sub }, 'subscription'],
    [{ type: 'withdrawal', balance_amount_cents: 100 }, 'balance_withdrawal'],
    [{ type: 'withdrawal', fixed_amount_cents: 100 }, 'preset_withdrawal'],
  ])('%j is %s', (shape, flow) => {
    expect(detectFlow(shape)).toEqual({ flow });
  });

  it.each<[string, FlowShape, string]>([
    ['deposit with balance_amount_cents', { type: 'deposit', balance_amount_cents: 1 }, 'balance_amount_cents'],
    ['deposit with both amounts', { type: 'deposit', fixed_amount_cents: 1, balance_amount_cents: 1 }, 'balance_amount_cents'],
    ['deposit with fixed amount and line items', { type: 'deposit', fixed_amount_cents: 1, line_items: [item] }, 'never both'],
    ['subscription without line items', { type: 'deposit', subscription_data: sub }, 'subscription_data requires line_items'],
    ['subscription with a fixed amount', { type: 'deposit', line_items: [item], subscription_data: sub, fixed_amount_cents: 1 }, 'never both'],
    ['subscription with a balance', { type: 'deposit', line_items: [item], subscription_data: sub, balance_amount_cents: 1 }, 'balance_amount_cents'],
    ['withdrawal with no amount', { type: 'withdrawal' }, 'requires balance_amount_cents or fixed_amount_cents'],
    ['withdrawal with both amounts', { type: 'withdrawal', fixed_amount_cents: 1, balance_amount_cents: 1 }, 'never both'],
    ['withdrawal with line items', { type: 'withdrawal', fixed_amount_cents: 1, line_items: [item] }, 'line_items'],
    ['withdrawal with subscription_data', { type: 'withdrawal', fixed_amount_cents: 1, subscription_data: sub }, 'subscription_data'],
  ])('refuses a %s, naming every flow in the hint', (_label, shape, reason) => {
    const result = detectFlow(shape);
    if (!isRefusal(result)) throw new Error(`expected a refusal, got ${result.flow}`);
    expect(result.error).toMatch(/^Unsupported parameter combination: /);
    expect(result.error).toContain(reason);
    for (const flow of CHECKOUT_FLOWS) expect(result.hint).toContain(`${flow} (${FLOW_PARAMETERS[flow]})`);
  });
});

describe('flowNotEnabled (rule 3)', () => {
  it('accepts an enabled flow', () => {
    expect(flowNotEnabled('purchase', CHECKOUT_FLOWS)).toBeNull();
  });

  it('refuses a disabled flow with a hint naming only the enabled ones', () => {
    const refusal = flowNotEnabled('subscription', ['deposit', 'preset_withdrawal']);
    expect(refusal?.error).toContain('subscription');
    expect(refusal?.hint).toBe(
      'Flows enabled for this account: deposit (type deposit with no amount field); preset_withdrawal (type withdrawal with fixed_amount_cents).',
    );
  });

  it('says so when no flow is enabled', () => {
    expect(flowNotEnabled('deposit', [])?.hint).toContain('No checkout flow is enabled');
  });
});

describe('acceptPaymentOptions (rule 4)', () => {
  const withdrawal: PaymentMethodId[] = ['credit_card', 'bank_account'];

  it('defaults to null (every enabled method) when omitted', () => {
    expect(acceptPaymentOptions(undefined, 'deposit', [...PAYMENT_METHODS])).toEqual({ paymentOptions: null });
  });

  it('accepts enabled methods, in the order given', () => {
    expect(acceptPaymentOptions(['bank_account', 'credit_card'], 'withdrawal', withdrawal)).toEqual({ paymentOptions: ['bank_account', 'credit_card'] });
  });

  it('lists every disabled or unknown method in the exact error, and the enabled ones in the hint', () => {
    expect(acceptPaymentOptions(['credit_card', 'paypal', 'crypto', 'cash'], 'withdrawal', withdrawal)).toEqual({
      error: 'Unsupported payment_options: paypal, crypto, cash.',
      hint: 'Payment methods enabled for withdrawal checkouts on this account: credit_card, bank_account.',
    });
  });

  it('refuses any checkout of a type with no enabled method', () => {
    expect(acceptPaymentOptions(undefined, 'withdrawal', [])).toMatchObject({ error: expect.stringContaining('No payment method') });
    expect(acceptPaymentOptions(['credit_card'], 'withdrawal', [])).toMatchObject({ error: 'Unsupported payment_options: credit_card.' });
  });
});

describe('offered methods and the wallet (rules 4 and 5)', () => {
  it('offers the request, or every enabled method, never one turned off since', () => {
    expect(offeredPaymentMethods(null, ['credit_card', 'venmo'])).toEqual(['credit_card', 'venmo']);
    expect(offeredPaymentMethods(['venmo', 'paypal'], ['credit_card', 'venmo'])).toEqual(['venmo']);
  });

  it('hides saved methods of a type that is not offered', () => {
    const saved = [
      { id: 'pm_1', payment_type: 'card' as const },
      { id: 'pm_2', payment_type: 'bank_account' as const },
      { id: 'pm_3', payment_type: 'crypto_wallet' as const },
    ];
    expect(visibleSavedMethods(saved, ['credit_card', 'crypto']).map((m) => m.id)).toEqual(['pm_1', 'pm_3']);
    expect(visibleSavedMethods(saved, ['apple_pay'])).toEqual([]);
  });
});

describe('line items', () => {
  it('marks the reserved skus shipping and tax, exactly as spelt', () => {
    expect(lineItemKind('shipping')).toBe('shipping');
    expect(lineItemKind('tax')).toBe('tax');
    expect(lineItemKind('Shipping')).toBe('product');
    expect(lineItemKind(null)).toBe('product');
    expect(lineItemKind(undefined)).toBe('product');
  });

  it('sums price times quantity in integer cents', () => {
    expect(lineItemsTotal([{ price_cents: 199, quantity: 3 }, { price_cents: 1, quantity: 1 }])).toEqual({ total: 598 });
  });

  it('refuses a total above the per-checkout maximum', () => {
    expect(lineItemsTotal([{ price_cents: MAX_AMOUNT_CENTS, quantity: 1 }])).toEqual({ total: MAX_AMOUNT_CENTS });
    const over = lineItemsTotal([{ price_cents: MAX_AMOUNT_CENTS, quantity: 2 }]);
    expect(isRefusal(over) && over.error).toContain(String(MAX_AMOUNT_CENTS));
  });
});
