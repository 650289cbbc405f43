// Calendar arithmetic of subscription periods, done by luxon in UTC rather than by hand: month
// lengths, leap years and "31 January plus one month" are the library's business.
import { DateTime } from 'luxon';

export type SubscriptionInterval = 'day' | 'week' | 'month' | 'year';

const UNIT = { day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

/**
 * The boundary after `periods` whole periods from the anchor. Always counted from the anchor,
 * never from the previous boundary, so the anchor day comes back after a short month: an anchor
 * on 31 January gives 28 (or 29) February, then 31 March, then 30 April. luxon clamps to the
 * end of a month that lacks the day, and 29 February plus one year is 28 February.
 */
export function periodBoundary(anchor: Date, interval: SubscriptionInterval, intervalCount: number, periods: number): Date {
  if (!Number.isSafeInteger(periods) || periods < 0) throw new RangeError(`periods must be a non-negative integer, got ${periods}`);
  return DateTime.fromJSDate(anchor, { zone: 'utc' })
    .plus({ [UNIT[interval]]: intervalCount * periods })
    .toJSDate();
}

/** A dunning retry: whole calendar days after the renewal fell due. */
export function daysAfter(date: Date, days: number): Date {
  return DateTime.fromJSDate(date, { zone: 'utc' }).plus({ days }).toJSDate();
}
