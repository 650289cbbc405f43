import { daysAfter, periodBoundary } from '../../src/domain/subscription-calendar';
import { incompleteSubscription, presentSubscription, subscriptionNow } from '../../src/domain/subscriptions';

const at = (iso: string) => new Date(iso);
const boundaries = (anchor: string, interval: 'day' | 'week' | 'month' | 'year', count: number, n: number) =>
  Array.from({ length: n }, (_, i) => periodBoundary(at(anchor), interval, count, i + 1).toISOString());

describe('subscription periods', () => {
  it('keeps a 31 January anchor across short months: 28 Feb, 31 Mar, 30 Apr, 31 May', () => {
    expect(boundaries('2027-01-31T09:30:00Z', 'month', 1, 4)).toEqual([
      '2027-02-28T09:30:00.000Z',
      '2027-03-31T09:30:00.000Z',
      '2027-04-30T09:30:00.000Z',
      '2027-05-31T09:30:00.000Z',
    ]);
  });

  it('gives 29 February in a leap year, and a 29 February anchor 28 February until the next leap year', () => {
    expect(periodBoundary(at('2028-01-31T00:00:00Z'), 'month', 1, 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(boundaries('2028-02-29T12:00:00Z', 'year', 1, 4)).toEqual([
      '2029-02-28T12:00:00.000Z',
      '2030-02-28T12:00:00.000Z',
      '2031-02-28T12:00:00.000Z',
      '2032-02-29T12:00:00.000Z',
    ]);
  });

  it('counts quarters, weeks and days from the anchor', () => {
    expect(boundaries('2027-11-30T00:00:00Z', 'month', 3, 2)).toEqual(['2028-02-29T00:00:00.000Z', '2028-05-30T00:00:00.000Z']);
    expect(boundaries('2027-12-28T00:00:00Z', 'week', 2, 1)).toEqual(['2028-01-11T00:00:00.000Z']);
    expect(boundaries('2027-12-31T23:00:00Z', 'day', 1, 1)).toEqual(['2028-01-01T23:00:00.000Z']);
    expect(periodBoundary(at('2027-12-31T23:00:00Z'), 'day', 1, 0).toISOString()).toBe('2027-12-31T23:00:00.000Z');
    expect(() => periodBoundary(at('2027-01-01T00:00:00Z'), 'day', 1, -1)).toThrow(RangeError);
  });

  it('retries dunning whole days after the due date', () => {
    expect(daysAfter(at('2028-02-28T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(daysAfter(at('2028-02-28T10:00:00Z'), 5).toISOString()).toBe('2028-03-04T10:00:00.000Z');
  });
});

describe('the subscription object', () => {
  it('is incomplete with no id and no period before the first charge', () => {
    expect(incompleteSubscription({ interval: 'week', interval_count: 2 }, 1500)).toEqual({
      id: null, status: 'incomplete', interval: 'week', interval_count: 2, amount_cents: 1500,
      current_period_start: null, current_period_end: null, next_charge_at: null,
      cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null, failed_attempts: 0,
    });
  });

  it('presents exactly the documented fields of a stored subscription', () => {
    const row = {
      id: 'sub_1', status: 'past_due' as const, interval: 'month' as const, interval_count: 1, amount_cents: 999,
      current_period_start: at('2027-01-31T00:00:00Z'), current_period_end: at('2027-02-28T00:00:00Z'),
      next_charge_at: at('2027-03-01T00:00:00Z'), cancel_at_period_end: false, cancelled_at: null,
      cancellation_reason: null, failed_attempts: 1, merchant_id: 'mer_1', clock_offset_ms: 5,
    };
    expect(presentSubscription(row)).toEqual({
      id: 'sub_1', status: 'past_due', interval: 'month', interval_count: 1, amount_cents: 999,
      current_period_start: '2027-01-31T00:00:00.000Z', current_period_end: '2027-02-28T00:00:00.000Z',
      next_charge_at: '2027-03-01T00:00:00.000Z', cancel_at_period_end: false, cancelled_at: null,
      cancellation_reason: null, failed_attempts: 1,
    });
  });

  it('reads its clock as real time plus the test clock offset', () => {
    expect(subscriptionNow(60_000, Date.parse('2027-01-01T00:00:00Z')).toISOString()).toBe('2027-01-01T00:01:00.000Z');
  });
});
