import { z } from 'zod';
import { adminListLimit, startingAfter } from '../admin/schemas';
import { SUBSCRIPTION_STATUSES } from '../domain/subscriptions';

/** Test clocks move forward by at most ten years per call: enough for any renewal schedule. */
export const MAX_CLOCK_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

export const SubscriptionListQuery = z.object({
  merchant_id: z.string().min(1).max(64).optional(),
  customer_id: z.string().min(1).max(64).optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).exclude(['incomplete']).optional(),
  limit: adminListLimit,
  starting_after: startingAfter,
});

export const CancelBody = z
  .object({ at_period_end: z.boolean().optional() })
  .strict();
export type CancelBody = z.infer<typeof CancelBody>;

export const AdvanceClockBody = z
  .object({
    to: z.iso.datetime({ offset: true }).optional(),
    seconds: z.number().int().min(1).max(MAX_CLOCK_ADVANCE_SECONDS).optional(),
  })
  .strict()
  .refine((body) => (body.to === undefined) !== (body.seconds === undefined), { message: 'give exactly one of to or seconds' });
export type AdvanceClockBody = z.infer<typeof AdvanceClockBody>;

/** A customer's test clock may start in the past or the future, within this century. */
const CLOCK_RANGE = { min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') };

export const CustomerClockBody = z
  .object({
    now: z.iso.datetime({ offset: true }).refine((iso) => Date.parse(iso) >= CLOCK_RANGE.min && Date.parse(iso) < CLOCK_RANGE.max, {
      message: 'must be in the years 2000 to 2099',
    }),
  })
  .strict();
export type CustomerClockBody = z.infer<typeof CustomerClockBody>;

export const PaymentMethodBody = z.object({ payment_method_id: z.string().min(1).max(64) }).strict();
export type PaymentMethodBody = z.infer<typeof PaymentMethodBody>;
