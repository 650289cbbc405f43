import { z } from 'zod';
import '../http/openapi-registry';
import { MAX_AMOUNT_CENTS } from '../domain/limits';
import { PageQuery } from '../readback/schemas';
import { PAYMENT_KINDS, PAYMENT_STATUSES } from '../storage/payments';

const day = z.iso.date();
const cents = z.coerce.number().int().min(0).max(MAX_AMOUNT_CENTS);

/** The filters of the merchant's payments list and of its CSV export (the same, so an export is what the page shows). */
export const PaymentFilterQuery = z.object({
  status: z.enum(PAYMENT_STATUSES).optional().openapi({ description: 'Only payments in this status (refunded and partially_refunded are read from the refunds, never from the checkout state).', example: 'refunded' }),
  type: z.enum(PAYMENT_KINDS).optional().openapi({ description: 'deposit (a plain or preset deposit), purchase, subscription or withdrawal.', example: 'purchase' }),
  created_from: day.optional().openapi({ description: 'Created on or after this UTC day (YYYY-MM-DD).', example: '2026-11-01' }),
  created_to: day.optional().openapi({ description: 'Created on or before this UTC day (YYYY-MM-DD), the day included.', example: '2026-11-30' }),
  amount_min_cents: cents.optional().openapi({ description: 'Amount at least this, in cents.', example: 1000 }),
  amount_max_cents: cents.optional().openapi({ description: 'Amount at most this, in cents.', example: 50000 }),
  customer_id: z.string().min(1).max(64).optional().openapi({ description: "Only this customer's.", example: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
  q: z.string().trim().min(1).max(200).optional().openapi({ description: "An id (chk_, ch_, cus_), or part of the customer's email or name, or of a product's name (case-insensitive).", example: 'ada' }),
});
export type PaymentFilterQuery = z.infer<typeof PaymentFilterQuery>;

export const PaymentListQuery = PaymentFilterQuery.extend(PageQuery.shape);
export type PaymentListQuery = z.infer<typeof PaymentListQuery>;

const Card = z.object({ brand: z.string().openapi({ description: 'The card brand (visa, mastercard, ...).' }), last4: z.string().openapi({ description: "The card number's last four digits." }) }).loose();
export const Payment = z.object({
  id: z.string().openapi({ description: "The checkout's id: one payment per checkout, whatever its charges.", example: 'chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb' }),
  type: z.enum(PAYMENT_KINDS),
  flow: z.string(),
  status: z.enum(PAYMENT_STATUSES).openapi({ description: 'Refunds first: refunded (all that was paid), partially_refunded; then succeeded when money moved; else the last charge\'s status (processing while created), or with no charge the checkout\'s state.' }),
  amount_cents: z.number().int().openapi({ description: 'The amount asked for (fixed, line items, or balance), or the last charge\'s.' }),
  paid_cents: z.number().int().openapi({ description: 'What succeeded charges took (refunded ones included).' }),
  refunded_cents: z.number().int().openapi({ description: 'What succeeded refunds gave back.' }),
  currency: z.string(),
  customer: z.object({ id: z.string(), internal_id: z.string().nullable(), email: z.string().nullable(), first_name: z.string().nullable(), last_name: z.string().nullable(), phone_number: z.string().nullable() }).nullable(),
  payment_method: z.object({ id: z.string(), payment_type: z.string(), card: Card.nullable(), bank_account: z.record(z.string(), z.unknown()).nullable(), crypto_wallet: z.record(z.string(), z.unknown()).nullable() })
    .loose().nullable().openapi({ description: 'The method of the last charge (card brand and last 4 under card); null before any charge.' }),
  line_items: z.array(z.object({ product_id: z.string(), name: z.string(), price_cents: z.number().int(), quantity: z.number().int(), total_amount_cents: z.number().int(), sku: z.string().nullable(), url: z.string().nullable() })),
  charge_id: z.string().nullable().openapi({ description: 'The last charge, null before any.' }),
  created_at: z.string().datetime(),
});
