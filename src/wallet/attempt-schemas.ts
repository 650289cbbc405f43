import { z } from 'zod';
import { MAX_AMOUNT_CENTS } from '../domain/limits';
import { WALLET_METHODS } from '../domain/settings';


const card = z
  .object({
    number: z.string().min(12).max(23),
    exp_month: z.number().int().min(1).max(12),
    exp_year: z.number().int().min(0).max(9999),
    cvc: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  })
  .strict();

const bankAccount = z
  .object({
    routing_number: z.string().min(1).max(20),
    account_number: z.string().min(1).max(34),
    account_type: z.enum(['checking', 'savings']),
  })
  .strict();

const cryptoWallet = z.object({ address: z.string().min(1).max(128), network: z.string().min(1).max(32) }).strict();

/** The wallet's payment method input: new details of one of the seven methods, or a saved method. */
export const PaymentMethodInput = z.union([
  z.object({ type: z.literal('credit_card'), card }).strict(),
  z.object({ type: z.literal('bank_account'), bank_account: bankAccount }).strict(),
  z.object({ type: z.literal('crypto'), crypto_wallet: cryptoWallet }).strict(),
  z.object({ type: z.enum(WALLET_METHODS), token: z.string().min(1).max(512) }).strict(),
  z.object({ saved_payment_method_id: z.string().min(1).max(64) }).strict(),
]);
export type PaymentMethodInput = z.infer<typeof PaymentMethodInput>;

export const AttemptBody = z
  .object({
    amount_cents: z.number().int().min(1).max(MAX_AMOUNT_CENTS).optional(),
    payment_method: PaymentMethodInput,
    save_payment_method: z.boolean().optional(),
  })
  .strict();
export type AttemptBody = z.infer<typeof AttemptBody>;
