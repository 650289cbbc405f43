import { z } from 'zod';
import { ALWAYS_ON_EVENT_TYPES, OPTIONAL_EVENT_TYPES } from './event-types';
import { MAX_AMOUNT_CENTS } from './limits';

/** The token wallets among the payment methods: paid with a token the wallet issues, on card rails. */
export const WALLET_METHODS = ['apple_pay', 'google_pay', 'paypal', 'venmo'] as const;

/** The seven payment method identifiers of the operator spec. */
export const PAYMENT_METHODS = ['credit_card', 'bank_account', ...WALLET_METHODS, 'crypto'] as const;
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
export const SANDBOX_PROCESSORS = ['sandbox_alpha', 'sandbox_beta', 'sandbox_gamma'] as const;
/** The sandboxes and the real connectors (src/processors/<name>/), selected by the merchant's card_processor. */
export const CARD_PROCESSORS = [...SANDBOX_PROCESSORS, 'stripe'] as const;
export type CardProcessorName = (typeof CARD_PROCESSORS)[number];

/** The card processors with a refund path (the operator spec): sandbox_gamma cannot refund. */
export const REFUND_CAPABLE_PROCESSORS: ReadonlySet<string> = new Set<CardProcessorName>(['sandbox_alpha', 'sandbox_beta', 'stripe']);

/**
 * The payment methods a real connector can take, by checkout type; a sandbox takes them all.
 * Stripe takes card deposits only: paying out to a card needs Stripe Connect, and its bank,
 * crypto and wallet rails are not built here.
 */
export const CONNECTOR_METHODS: Partial<Record<CardProcessorName, Record<CheckoutType, readonly PaymentMethodId[]>>> = {
  stripe: { deposit: ['credit_card'], withdrawal: [] },
};

/**
 * The merchant's Stripe secret key and webhook endpoint secret: written here, sealed at rest, and
 * never answered again (the settings show the key's last four and whether each is set).
 */
export const StripeCredentialsPatchSchema = z
  .object({
    secret_key: z.string().regex(/^sk_(test|live)_[A-Za-z0-9]{4,}$/, 'must be a Stripe secret key (sk_test_... or sk_live_...)'),
    webhook_secret: z.string().regex(/^whsec_[A-Za-z0-9+/=]{4,}$/, 'must be a Stripe webhook endpoint secret (whsec_...)'),
  })
  .partial()
  .strict();
export type StripeCredentialsPatch = z.infer<typeof StripeCredentialsPatchSchema>;

/** How the settings show the Stripe credentials: never the secrets. */
export const StripeCredentialsViewSchema = z.object({
  secret_key_last4: z.string().nullable(),
  webhook_secret_set: z.boolean(),
});

export const US_REGIONS = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS',
  'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC',
  'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
] as const;

/**
 * The highest attempt limit a merchant may set. By default there is none (the contract sets no
 * limit); a checkout workflow whose history grows long continues as new, so it never meets
 * Temporal's history limit however many attempts a customer makes.
 */
export const MAX_ATTEMPTS_PER_CHECKOUT = 500;
/** `previously_deposited`: withdrawals only to an instrument the customer deposited from successfully. */
export const WITHDRAWAL_DESTINATION_RULES = ['any', 'previously_deposited'] as const;

const uniqueList = <T extends z.ZodType>(item: T) =>
  z.array(item).refine((list) => new Set(list).size === list.length, { message: 'must not repeat a value' });

/** Dunning: days after a renewal's due date on which a failed renewal is retried, ascending. */
const SUBSCRIPTION_RETRY_DAYS = z
  .array(z.number().int().min(1).max(60))
  .max(10)
  .refine((days) => days.every((day, i) => i === 0 || day > days[i - 1]!), { message: 'must be strictly ascending' });

/** The settings that are objects: a PATCH may give any of their fields, the rest are kept. */
const OBJECT_SETTINGS = {
  payment_methods: z.object({ deposit: uniqueList(z.enum(PAYMENT_METHODS)), withdrawal: uniqueList(z.enum(PAYMENT_METHODS)) }).strict(),
  review: z.object({ enabled: z.boolean(), min_amount_cents: z.number().int().min(1).max(MAX_AMOUNT_CENTS) }).strict(),
  velocity_limits: z
    .object({
      enabled: z.boolean(),
      card_attempts_per_hour: z.number().int().min(1).max(10_000),
      ip_attempts_per_hour: z.number().int().min(1).max(100_000),
      // null: no per-customer count (the default); cards and IPs are still counted.
      customer_attempts_per_hour: z.number().int().min(1).max(10_000).nullable(),
    })
    .strict(),
};
type ObjectSetting = keyof typeof OBJECT_SETTINGS;
const OBJECT_SETTING_NAMES = Object.keys(OBJECT_SETTINGS) as ObjectSetting[];

/** Each setting's type, without defaults (zod 4 would fill defaults into a partial PATCH too). */
const SETTING_FIELDS = {
  webhook_url: z.string().url().max(2048).nullable(),
  // Always-on events need no entry; one listed anyway is accepted and changes nothing.
  enabled_events: uniqueList(z.enum([...ALWAYS_ON_EVENT_TYPES, ...OPTIONAL_EVENT_TYPES])),
  customer_fields: z.enum(CUSTOMER_FIELD_MODES),
  checkout_flows: uniqueList(z.enum(CHECKOUT_FLOWS)),
  payment_methods: OBJECT_SETTINGS.payment_methods,
  card_processor: z.enum(CARD_PROCESSORS),
  kyc_enabled: z.boolean(),
  kyc_required_for: uniqueList(z.enum(CHECKOUT_TYPES)),
  device_pings_enabled: z.boolean(),
  geo_required_for: uniqueList(z.enum(CHECKOUT_TYPES)),
  supported_regions: uniqueList(z.enum(US_REGIONS)),
  review: OBJECT_SETTINGS.review,
  checkout_expiry_seconds: z.number().int().min(1).max(86400),
  sandbox_settlement_seconds: z.number().int().min(0).max(3600),
  sandbox_hold_seconds: z.number().int().min(0).max(3600),
  // null: no limit (the contract's default). A merchant may cap attempts on one link.
  max_attempts_per_checkout: z.number().int().min(1).max(MAX_ATTEMPTS_PER_CHECKOUT).nullable(),
  velocity_limits: OBJECT_SETTINGS.velocity_limits,
  subscription_retry_days: SUBSCRIPTION_RETRY_DAYS,
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
  max_attempts_per_checkout: null,
  velocity_limits: { enabled: false, card_attempts_per_hour: 10, ip_attempts_per_hour: 30, customer_attempts_per_hour: null },
  subscription_retry_days: [1, 3, 5],
  withdrawal_destinations: 'any',
} as const;

export const MerchantSettingsSchema = z.object(SETTING_FIELDS).strict();
export type MerchantSettings = z.infer<typeof MerchantSettingsSchema>;

/** A PATCH body or the settings given at onboarding: any subset, of an object setting's fields too; nothing filled in. */
export const MerchantSettingsPatchSchema = z
  .object({
    ...SETTING_FIELDS,
    payment_methods: OBJECT_SETTINGS.payment_methods.partial(),
    review: OBJECT_SETTINGS.review.partial(),
    velocity_limits: OBJECT_SETTINGS.velocity_limits.partial(),
    stripe: StripeCredentialsPatchSchema,
  })
  .partial()
  .strict();
export type MerchantSettingsPatch = z.infer<typeof MerchantSettingsPatchSchema>;

/** The patch over the current settings; an object setting's fields not given keep their values. */
export function applySettingsPatch(current: MerchantSettings, patch: MerchantSettingsPatch): MerchantSettings {
  // The Stripe credentials are not settings at rest: they are sealed apart (merchant service).
  const { stripe: _credentials, ...settings } = patch;
  const merged: Record<string, unknown> = { ...current, ...settings };
  for (const name of OBJECT_SETTING_NAMES) {
    if (settings[name]) merged[name] = { ...current[name], ...settings[name] };
  }
  return MerchantSettingsSchema.parse(merged);
}

export type Environment = 'sandbox' | 'production';

/**
 * Why the settings cannot go with their card processor, or null: a payment method the connector
 * cannot take, a Stripe merchant without a secret key.
 */
export function processorRefusal(settings: MerchantSettings, hasStripeKey: boolean): { message: string; hint: string } | null {
  const supported = CONNECTOR_METHODS[settings.card_processor];
  if (supported) {
    for (const type of CHECKOUT_TYPES) {
      const unsupported = settings.payment_methods[type].filter((method) => !supported[type].includes(method));
      if (unsupported.length === 0) continue;
      const allowed = supported[type].length ? supported[type].join(', ') : 'none';
      return {
        message: `${settings.card_processor} cannot take ${unsupported.join(', ')} ${type}s.`,
        hint:
          type === 'withdrawal' && unsupported.includes('credit_card')
            ? `Card withdrawals (payouts to a customer's card) are not possible through ${settings.card_processor}: they need Stripe Connect. Set payment_methods.${type} to methods among: ${allowed}.`
            : `Set payment_methods.${type} to methods ${settings.card_processor} supports (${allowed}), in the same request, or keep a sandbox card_processor.`,
      };
    }
  }
  if (settings.card_processor === 'stripe' && !hasStripeKey) {
    return { message: 'Stripe needs the merchant\'s Stripe secret key.', hint: 'Send stripe: {secret_key, webhook_secret} with card_processor "stripe".' };
  }
  return null;
}

/**
 * The defaults for a new merchant. Velocity limits are on for production accounts; sandbox
 * accounts share the test cards with everyone, so there they start off.
 */
export function defaultSettings(environment: Environment = 'sandbox'): MerchantSettings {
  const defaults = structuredClone(DEFAULTS) as unknown as MerchantSettings;
  defaults.velocity_limits.enabled = environment === 'production';
  return MerchantSettingsSchema.parse(defaults);
}

/** Each environment's defaults, validated once: every merchant row read fills its missing settings from them. */
const sharedDefaults = new Map<Environment, MerchantSettings>();

/** Stored settings with the defaults of any setting added after the merchant was onboarded. */
export function withDefaultSettings(stored: Partial<MerchantSettings>, environment: Environment): MerchantSettings {
  let defaults = sharedDefaults.get(environment);
  if (!defaults) sharedDefaults.set(environment, (defaults = defaultSettings(environment)));
  // Stored values over the defaults (in the defaults' order), each default taken as a copy, so no
  // caller ever holds the shared one. An object setting stored before one of its fields existed
  // reads that field's default.
  const merged: Record<string, unknown> = { ...defaults, ...stored };
  for (const name of Object.keys(defaults) as Array<keyof MerchantSettings>) {
    if (!Object.hasOwn(stored, name)) merged[name] = structuredClone(defaults[name]);
  }
  for (const name of OBJECT_SETTING_NAMES) {
    const fields = stored[name];
    if (!fields) continue;
    const filled: Record<string, unknown> = { ...defaults[name], ...fields };
    for (const field of Object.keys(defaults[name])) if (!Object.hasOwn(fields, field)) filled[field] = structuredClone((defaults[name] as Record<string, unknown>)[field]);
    merged[name] = filled;
  }
  return merged as MerchantSettings;
}
