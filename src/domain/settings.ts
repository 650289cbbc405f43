import { z } from 'zod';
import { OPTIONAL_EVENT_TYPES } from './event-types';

/** The seven payment method identifiers of the operator spec. */
export const PAYMENT_METHODS = ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'] as const;
export type PaymentMethodId = (typeof PAYMENT_METHODS)[number];

export const CHECKOUT_TYPES = ['deposit', 'withdrawal'] as const;
export type CheckoutType = (typeof CHECKOUT_TYPES)[number];

export const CHECKOUT_FLOWS = [
  'deposit',
  'preset_deposit',
  'purchase',
  'subscription',
  'balance_withdrawal',
  'preset_withdrawal',
] as const;
export type CheckoutFlow = (typeof CHECKOUT_FLOWS)[number];

export const CUSTOMER_FIELD_MODES = ['names_and_email', 'names_and_email_or_phone', 'email_only'] as const;
export const CARD_PROCESSORS = ['sandbox_alpha', 'sandbox_beta', 'sandbox_gamma'] as const;

export const US_REGIONS = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS',
  'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC',
  'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
] as const;

/** `previously_deposited`: withdrawals only to an instrument the customer deposited from successfully. */
export const WITHDRAWAL_DESTINATION_RULES = ['any', 'previously_deposited'] as const;

const uniqueList = <T extends z.ZodType>(item: T) =>
  z.array(item).refine((list) => new Set(list).size === list.length, { message: 'must not repeat a value' });

/** Each setting's type, without defaults (zod 4 would fill defaults into a partial PATCH too). */
const SETTING_FIELDS = {
  webhook_url: z.string().url().max(2048).nullable(),
  enabled_events: uniqueList(z.enum(OPTIONAL_EVENT_TYPES)),
  customer_fields: z.enum(CUSTOMER_FIELD_MODES),
  checkout_flows: uniqueList(z.enum(CHECKOUT_FLOWS)),
  payment_methods: z
    .object({ deposit: uniqueList(z.enum(PAYMENT_METHODS)), withdrawal: uniqueList(z.enum(PAYMENT_METHODS)) })
    .strict(),
  card_processor: z.enum(CARD_PROCESSORS),
  kyc_enabled: z.boolean(),
  kyc_required_for: uniqueList(z.enum(CHECKOUT_TYPES)),
  device_pings_enabled: z.boolean(),
  geo_required_for: uniqueList(z.enum(CHECKOUT_TYPES)),
  supported_regions: uniqueList(z.enum(US_REGIONS)),
  review: z.object({ enabled: z.boolean(), min_amount_cents: z.number().int().min(1) }).strict(),
  checkout_expiry_seconds: z.number().int().min(1).max(86400),
  sandbox_settlement_seconds: z.number().int().min(0).max(3600),
  sandbox_hold_seconds: z.number().int().min(0).max(3600),
  withdrawal_destinations: z.enum(WITHDRAWAL_DESTINATION_RULES),
};

/** The defaults of the operator spec's settings table. */
const DEFAULTS = {
  webhook_url: null,
  enabled_events: [],
  customer_fields: 'names_and_email',
  checkout_flows: [...CHECKOUT_FLOWS],
  payment_methods: { deposit: [...PAYMENT_METHODS], withdrawal: ['credit_card', 'bank_account'] },
  card_processor: 'sandbox_alpha',
  kyc_enabled: true,
  kyc_required_for: [],
  device_pings_enabled: true,
  geo_required_for: [],
  supported_regions: [...US_REGIONS],
  review: { enabled: false, min_amount_cents: 1 },
  checkout_expiry_seconds: 1800,
  sandbox_settlement_seconds: 5,
  sandbox_hold_seconds: 0,
  withdrawal_destinations: 'any',
} as const;

export const MerchantSettingsSchema = z.object(SETTING_FIELDS).strict();
export type MerchantSettings = z.infer<typeof MerchantSettingsSchema>;

/** A PATCH body or the settings given at onboarding: any subset, nothing filled in. */
export const MerchantSettingsPatchSchema = z.object(SETTING_FIELDS).partial().strict();
export type MerchantSettingsPatch = z.infer<typeof MerchantSettingsPatchSchema>;

export function applySettingsPatch(current: MerchantSettings, patch: MerchantSettingsPatch): MerchantSettings {
  return MerchantSettingsSchema.parse({ ...current, ...patch });
}

export function defaultSettings(): MerchantSettings {
  return MerchantSettingsSchema.parse(structuredClone(DEFAULTS));
}
