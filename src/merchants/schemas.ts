import { z } from 'zod';
import { MerchantSettingsPatchSchema, MerchantSettingsSchema, StripeCredentialsViewSchema } from '../domain/settings';

export const MerchantCreateBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    environment: z.enum(['sandbox', 'production']).default('sandbox'),
    settings: MerchantSettingsPatchSchema.optional(),
  })
  .strict();
export type MerchantCreateBody = z.infer<typeof MerchantCreateBody>;

export const SettingsPatchBody = MerchantSettingsPatchSchema.refine((patch) => Object.keys(patch).length > 0, {
  message: 'at least one setting is required',
});

/** How long the rolled secret keeps signing beside the new one: at most a week. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600;

export const RollSigningSecretBody = z
  .object({
    overlap_seconds: z.number().int().min(0).max(MAX_SECRET_OVERLAP_SECONDS).default(86_400),
    force: z
      .boolean()
      .default(false)
      .describe("Roll even while an earlier roll's overlap runs: the secret before the current one then stops signing at once. Without it such a roll is refused with 422."),
  })
  .strict();
export type RollSigningSecretBody = z.infer<typeof RollSigningSecretBody>;

export const MerchantResponse = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(['sandbox', 'production']),
  settings: MerchantSettingsSchema.extend({ stripe: StripeCredentialsViewSchema.optional() }),
  previous_webhook_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
});
