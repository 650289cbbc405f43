import { z } from 'zod';
import { MerchantSettingsPatchSchema, MerchantSettingsSchema } from '../domain/settings';

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

export const MerchantResponse = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(['sandbox', 'production']),
  settings: MerchantSettingsSchema,
  created_at: z.string(),
});
