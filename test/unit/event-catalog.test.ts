import {
  ALWAYS_ON_EVENTS,
  EVENT_TYPES,
  OPTIONAL_EVENTS,
  buildEnvelope,
  chargeEventData,
  checkoutEventData,
  customerEventData,
  expiredEventData,
  isDelivered,
  isEventType,
  type CheckoutLike,
  type CustomerLike,
  type ChargeLike,
} from '../../src/domain/event-catalog';

const lineItem = {
  product_id: 'prod_1',
  quantity: 2,
  total_amount_cents: 1000,
  product_name: 'Widget',
  product_url: 'https://example.test/w.png',
  product_price_cents: 500,
  sku: 'W-1',
};
const checkout: CheckoutLike = { id: 'chk_1', type: 'deposit', line_items: [lineItem] };
const customer: CustomerLike & { phone_number: string } = {
  id: 'cus_1',
  internal_id: null,
  email: 'a@example.test',
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone_number: '5555550100',
};
const charge: ChargeLike & { processor_token: string } = {
  id: 'ch_1',
  amount_cents: 1000,
  transaction_type: 'credit',
  status: 'succeeded',
  failure_code: null,
  failure_message: null,
  processor_token: 'sbx_approve_x',
};

describe('catalog', () => {
  it('lists the 17 event types of the contract and our 5 subscription events, always-on and optional apart', () => {
    expect(EVENT_TYPES).toHaveLength(22);
    expect(new Set(EVENT_TYPES).size).toBe(22);
    expect(EVENT_TYPES.filter((type) => type.startsWith('subscription.')).sort()).toEqual(
      ['subscription.cancelled', 'subscription.created', 'subscription.payment_failed', 'subscription.renewed', 'subscription.updated'],
    );
    expect([...ALWAYS_ON_EVENTS].sort()).toEqual(
      ['checkout.hold', 'checkout.release_hold', 'checkout.returned', 'checkout.succeeded'],
    );
    expect([...ALWAYS_ON_EVENTS, ...OPTIONAL_EVENTS].sort()).toEqual([...EVENT_TYPES].sort());
    expect(OPTIONAL_EVENTS.some((type) => (ALWAYS_ON_EVENTS as readonly string[]).includes(type))).toBe(false);
    expect(isEventType('checkout.review.created')).toBe(true);
    expect(isEventType('checkout.completed')).toBe(false);
  });

  it('delivers always-on events to everyone, optional ones only when enabled', () => {
    for (const type of ALWAYS_ON_EVENTS) expect(isDelivered(type, [])).toBe(true);
    for (const type of OPTIONAL_EVENTS) {
      expect(isDelivered(type, [])).toBe(false);
      expect(isDelivered(type, [type])).toBe(true);
      expect(isDelivered(type, ['checkout.pending-typo'])).toBe(false);
    }
  });
});

describe('charge event data', () => {
  const data = chargeEventData({ checkout, customer, charge, fromStatus: 'created' });

  it('has exactly the contract keys, in order', () => {
    expect(Object.keys(data)).toEqual(['id', 'type', 'customer', 'charge', 'line_items', 'subscription']);
    expect(Object.keys(data.charge)).toEqual(
      ['id', 'amount_cents', 'transaction_type', 'status', 'from_status', 'failure_code', 'failure_message'],
    );
    expect(Object.keys(data.customer)).toEqual(['id', 'internal_id', 'email', 'first_name', 'last_name']);
  });

  it('describes the checkout and the move', () => {
    expect(data).toMatchObject({ id: 'chk_1', type: 'deposit', subscription: null });
    expect(data.charge).toMatchObject({ status: 'succeeded', from_status: 'created', failure_code: null });
  });

  it('uses the webhook line item shape, and drops columns that are not in it', () => {
    const row = { ...lineItem, name: 'Widget', price_cents: 500, url: 'x', merchant_id: 'mer_1' };
    const withRow = { ...checkout, line_items: [row] };
    const shaped = chargeEventData({ checkout: withRow, customer, charge, fromStatus: 'created' });
    expect(shaped.line_items).toEqual([lineItem]);
    expect(JSON.stringify(shaped)).not.toMatch(/phone_number|processor_token|merchant_id/);
  });

  it('describes a subscription not yet paid as incomplete and gives [] for a checkout without line items', () => {
    const subscription = { interval: 'month' as const, interval_count: 3 };
    const shaped = chargeEventData({
      checkout: { id: 'chk_2', type: 'deposit', subscription },
      customer,
      charge,
      fromStatus: 'pending',
    });
    expect(shaped.subscription).toEqual({
      id: null, status: 'incomplete', interval: 'month', interval_count: 3, amount_cents: 0,
      current_period_start: null, current_period_end: null, next_charge_at: null,
      cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null, failed_attempts: 0,
    });
    expect(shaped.line_items).toEqual([]);
  });
});

describe('checkout event data', () => {
  it('gives checkout.expired exactly id, expired_at, type, customer.id, subscription', () => {
    const data = expiredEventData({ checkout, customerId: 'cus_1', expiredAt: new Date('2030-01-01T00:30:00Z') });
    expect(data).toEqual({
      id: 'chk_1',
      expired_at: '2030-01-01T00:30:00.000Z',
      type: 'deposit',
      customer: { id: 'cus_1' },
      subscription: null,
    });
    expect(Object.keys(data)).toEqual(['id', 'expired_at', 'type', 'customer', 'subscription']);
  });

  it('gives checkout.terminally_failed the checkout and reason, no charge', () => {
    const data = checkoutEventData({ checkout, customerId: 'cus_1', reason: 'geo_check_failed' });
    expect(Object.keys(data)).toEqual(['id', 'type', 'customer', 'reason', 'line_items', 'subscription']);
    expect(data).toMatchObject({ customer: { id: 'cus_1' }, reason: 'geo_check_failed', line_items: [lineItem] });
  });

  it('gives review events the review, type withdrawal, the paused deadline, no charge', () => {
    const review = { id: 'cpilr_1', status: 'pending', amount_cents: 5000, checkout_id: 'chk_3' };
    const data = checkoutEventData({ checkout: { id: 'chk_3', type: 'withdrawal' }, customerId: 'cus_1', review, expiresAt: null });
    expect(data).toEqual({
      id: 'chk_3',
      type: 'withdrawal',
      customer: { id: 'cus_1' },
      review: { id: 'cpilr_1', status: 'pending', amount_cents: 5000 },
      expires_at: null,
      subscription: null,
    });
  });

  it('gives an approval the resumed deadline', () => {
    const review = { id: 'cpilr_1', status: 'approved', amount_cents: 5000 };
    const expiresAt = new Date('2026-11-22T12:00:00Z');
    const data = checkoutEventData({ checkout: { id: 'chk_3', type: 'withdrawal' }, customerId: 'cus_1', review, expiresAt });
    expect(data.expires_at).toBe('2026-11-22T12:00:00.000Z');
  });
});

describe('customer event data', () => {
  it('carries the customer and the extras, never charge, line_items or subscription', () => {
    const data = customerEventData({ customer, reason_code: 'KYC_DOES_NOT_MATCH_PROFILE_NAME' });
    expect(Object.keys(data)).toEqual(['customer', 'reason_code']);
    expect(Object.keys(data.customer)).toEqual(['id', 'internal_id', 'email', 'first_name', 'last_name']);
  });

  it('refuses forbidden keys from untyped callers', () => {
    const untyped = customerEventData as (input: object) => object;
    expect(() => untyped({ customer, charge: {} })).toThrow(/charge/);
    expect(() => untyped({ customer, subscription: null })).toThrow(/subscription/);
  });
});

describe('envelope', () => {
  it('serialises event_id, data, type in that order', () => {
    const body = buildEnvelope('ev_1', 'checkout.succeeded', { id: 'chk_1', type: 'deposit' });
    expect(body).toBe('{"event_id":"ev_1","data":{"id":"chk_1","type":"deposit"},"type":"checkout.succeeded"}');
    expect(body.indexOf('"event_id"')).toBeLessThan(body.indexOf('"data"'));
    expect(body.lastIndexOf('"type":"checkout.succeeded"')).toBeGreaterThan(body.indexOf('"data"'));
  });

  it('keeps the order whatever order the data was built in', () => {
    const body = buildEnvelope('ev_2', 'checkout.expired', { type: 'deposit', id: 'chk_1' });
    expect(Object.keys(JSON.parse(body))).toEqual(['event_id', 'data', 'type']);
    expect(body.startsWith('{"event_id":"ev_2","data":{')).toBe(true);
    expect(body.endsWith('},"type":"checkout.expired"}')).toBe(true);
  });

  it('refuses an event id without the ev_ prefix', () => {
    expect(() => buildEnvelope('chk_1', 'checkout.succeeded', {})).toThrow(/ev_/);
  });
});
