import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../storage/db';
import type { Sealer } from '../crypto';
import { hashSecret } from '../crypto';
import { newId, newSecret } from '../domain/ids';
import { applySettingsPatch, defaultSettings, processorRefusal, type Environment, type MerchantSettings, type MerchantSettingsPatch, type StripeCredentialsPatch } from '../domain/settings';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import { insertApiKey, pageApiKeys, revokeApiKey, type ApiKeyRow } from '../storage/api-keys';
import { UnknownCursorError } from '../storage/pages';
import { findMerchant, insertMerchant, rotateSigningSecret, updateMerchantSettings, type MerchantRow, type StripeCredentialColumns } from '../storage/merchants';
import type { MerchantCreateBody, RollSigningSecretBody } from './schemas';
import { assertWebhookUrlAllowed } from './webhook-url';
import { targetPolicy, type HostResolver, type TargetPolicy } from '../webhooks/target';
import type { AppDeps } from '../app-deps';
import { recordAudit, type AuditAction } from '../identity/audit';
import type { Actor } from '../identity/context';

export interface IssuedCredentials {
  api_key: string;
  client_secret: string;
  key_prefix: string;
}

/** Characters of a key shown to name it for revocation: "key_" plus 8, far too few to guess the rest. */
const KEY_PREFIX_LENGTH = 12;

export interface MerchantServiceOptions {
  sealer: Sealer;
  webhookPolicy: TargetPolicy;
  resolveHost?: HostResolver;
}

/** What the merchant changes are made with. */
export type MerchantDeps = Pick<AppDeps, 'db' | 'sealer' | 'config' | 'resolveHost'>;

export const merchantServiceOptions = ({ sealer, config, resolveHost }: MerchantDeps): MerchantServiceOptions => ({ sealer, webhookPolicy: targetPolicy(config), resolveHost });

/** The mode a Stripe key must have for a merchant's environment. */
const STRIPE_KEY_MODE = { sandbox: { prefix: 'sk_test_', name: 'test-mode' }, production: { prefix: 'sk_live_', name: 'live' } } as const;

/** The given Stripe credentials, checked against the merchant's environment and sealed; nothing for what was not given. */
function sealStripeCredentials(sealer: Sealer, environment: Environment, given: StripeCredentialsPatch | undefined): Partial<StripeCredentialColumns> {
  if (!given) return {};
  const columns: Partial<StripeCredentialColumns> = {};
  if (given.secret_key !== undefined) {
    const mode = STRIPE_KEY_MODE[environment];
    if (!given.secret_key.startsWith(mode.prefix)) {
      throw new ValidationError(`A ${environment} merchant takes a ${mode.name} Stripe key only.`, `Send stripe.secret_key starting ${mode.prefix}: sandbox merchants use Stripe's test mode, production merchants its live mode.`);
    }
    columns.stripe_secret_key_sealed = sealer.seal(given.secret_key);
    columns.stripe_secret_key_last4 = given.secret_key.slice(-4);
  }
  if (given.webhook_secret !== undefined) columns.stripe_webhook_secret_sealed = sealer.seal(given.webhook_secret);
  return columns;
}

/** Refuses settings their card processor cannot serve (422 with the refusal's hint). */
function assertProcessorServes(settings: MerchantSettings, hasStripeKey: boolean): void {
  const refusal = processorRefusal(settings, hasStripeKey);
  if (refusal) throw new ValidationError(refusal.message, refusal.hint);
}

export async function onboardMerchant(db: Db, options: MerchantServiceOptions, body: MerchantCreateBody) {
  const settings = applySettingsPatch(defaultSettings(body.environment), body.settings ?? {});
  const stripe = sealStripeCredentials(options.sealer, body.environment, body.settings?.stripe);
  assertProcessorServes(settings, Boolean(stripe.stripe_secret_key_sealed));
  await assertWebhookUrlAllowed(settings.webhook_url, options.webhookPolicy, options.resolveHost);
  const signingSecret = newSecret('signingSecret');
  return db.transaction(async (trx) => {
    const merchant = await insertMerchant(trx, {
      id: newId('merchant'),
      name: body.name,
      environment: body.environment,
      settings,
      webhook_signing_secret_sealed: options.sealer.seal(signingSecret),
      ...stripe,
    });
    const credentials = await issueCredentials(trx, merchant.id);
    // Secrets are answered once, here; only their hashes (or the sealed signing secret) remain.
    // The key's prefix is what names it for revocation, as when a key is issued later.
    return {
      ...presentMerchant(merchant),
      api_key: credentials.api_key,
      key_prefix: credentials.key_prefix,
      client_secret: credentials.client_secret,
      webhook_signing_secret: signingSecret,
    };
  });
}

export async function issueCredentials(db: Db, merchantId: string): Promise<IssuedCredentials> {
  const apiKey = newSecret('apiKey');
  const clientSecret = newSecret('clientSecret');
  const keyPrefix = apiKey.slice(0, KEY_PREFIX_LENGTH);
  await insertApiKey(db, {
    merchant_id: merchantId,
    key_prefix: keyPrefix,
    api_key_hash: hashSecret(apiKey),
    client_secret_hash: hashSecret(clientSecret),
  });
  return { api_key: apiKey, client_secret: clientSecret, key_prefix: keyPrefix };
}

export async function getMerchant(db: Db, id: string): Promise<MerchantRow> {
  const merchant = await findMerchant(db, id);
  if (!merchant) throw new AdminNotFoundError('Merchant not found.', `No merchant ${id} exists.`);
  return merchant;
}

/** The audit action of a settings change: the Developers section's two settings by their own names, anything else as settings. */
function settingsAction(patch: MerchantSettingsPatch): AuditAction {
  const keys = Object.keys(patch);
  if (keys.length === 1 && keys[0] === 'webhook_url') return 'webhook_url.changed';
  if (keys.length === 1 && keys[0] === 'enabled_events') return 'enabled_events.changed';
  return 'settings.changed';
}

/**
 * Applies a settings patch for `actor` (the operator on any merchant, a merchant's person on their
 * own). The merge reads the row locked, in the transaction that writes it, so two patches at once
 * (of different settings, say) both take effect instead of the later write putting back what the
 * earlier one changed. The audit row holds each changed setting before and after (a Stripe key
 * only as its last four) and commits with the change.
 */
export async function changeSettings(deps: MerchantDeps, actor: Actor, merchantId: string, patch: MerchantSettingsPatch): Promise<PresentedSettings> {
  const options = merchantServiceOptions(deps);
  await getMerchant(deps.db, merchantId);
  if (patch.webhook_url !== undefined) await assertWebhookUrlAllowed(patch.webhook_url, options.webhookPolicy, options.resolveHost);
  return deps.db.transaction(async (trx) => {
    const merchant = (await findMerchant(trx, merchantId, true))!;
    const settings = applySettingsPatch(merchant.settings, patch);
    const stripe = sealStripeCredentials(options.sealer, merchant.environment, patch.stripe);
    assertProcessorServes(settings, Boolean(stripe.stripe_secret_key_sealed ?? merchant.stripe_secret_key_sealed));
    const updated = (await updateMerchantSettings(trx, merchantId, settings, stripe))!;
    const changes = settingsChanges(presentSettings(merchant), presentSettings(updated));
    await recordAudit(trx, { merchantId, actor, action: settingsAction(patch), target: merchantId, details: { changes } });
    return presentSettings(updated);
  });
}

export type PresentedSettings = ReturnType<typeof presentSettings>;

export type SettingsChanges = Record<string, { from: unknown; to: unknown }>;

/**
 * The settings a change moved, each with its value before and after. Compared as presented, so
 * the Stripe credentials appear as their last four and set-or-not, never as the secrets.
 */
export function settingsChanges(before: object, after: object): SettingsChanges {
  const was = before as Record<string, unknown>;
  const is = after as Record<string, unknown>;
  const changes: SettingsChanges = {};
  for (const key of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (!isDeepStrictEqual(was[key], is[key])) changes[key] = { from: was[key] ?? null, to: is[key] ?? null };
  }
  return changes;
}

/** The settings as answered: with the Stripe credentials shown as set or not (the key's last four), never the secrets. */
export function presentSettings(m: MerchantRow) {
  if (!m.stripe_secret_key_sealed && !m.stripe_webhook_secret_sealed) return m.settings;
  return { ...m.settings, stripe: { secret_key_last4: m.stripe_secret_key_last4, webhook_secret_set: Boolean(m.stripe_webhook_secret_sealed) } };
}

/**
 * Rolls the webhook signing secret: the new one is answered once, here, and signs every delivery
 * from now on; the old one keeps signing beside it for `overlap_seconds`, so the merchant can
 * deploy the new secret without a delivery failing verification in between. A second roll during
 * that overlap would drop the secret the merchant has deployed (a double click, a retried request):
 * it is refused unless `force` says the operator means it.
 */
export async function rollSigningSecret(deps: MerchantDeps, actor: Actor, merchantId: string, body: RollSigningSecretBody) {
  return deps.db.transaction(async (trx) => {
    await getMerchant(trx, merchantId);
    const secret = newSecret('signingSecret');
    const previousExpiresAt = new Date(Date.now() + body.overlap_seconds * 1000);
    const rolled = await rotateSigningSecret(trx, merchantId, deps.sealer.seal(secret), previousExpiresAt, body.force);
    if (!rolled) {
      const until = (await getMerchant(trx, merchantId)).previous_webhook_signing_secret_expires_at?.toISOString() ?? 'its end';
      throw new ValidationError(
        'The signing secret was rolled less than its overlap ago.',
        `The secret before the current one, which the merchant may still have deployed, signs deliveries until ${until}; rolling again now would stop it at once. Roll after ${until}, or send {"force": true} to roll anyway (a leaked secret). Retry a roll with the same Idempotency-Key to get its answer again.`,
      );
    }
    await recordAudit(trx, { merchantId, actor, action: 'signing_secret.rolled', target: merchantId, details: { previous_expires_at: previousExpiresAt.toISOString(), forced: body.force } });
    return { webhook_signing_secret: secret, previous_webhook_secret_expires_at: previousExpiresAt.toISOString() };
  });
}

/**
 * The current signing secret, shown to a person once `prove` (a fresh authenticator code of
 * theirs, checked first) holds; every sight of it is audited with who and from where.
 */
export async function revealSigningSecret(deps: MerchantDeps, actor: Actor, merchantId: string, prove: () => Promise<void>) {
  await prove();
  return deps.db.transaction(async (trx) => {
    const merchant = await getMerchant(trx, merchantId);
    await recordAudit(trx, { merchantId, actor, action: 'signing_secret.revealed', target: merchantId });
    return { webhook_secret: deps.sealer.open(merchant.webhook_signing_secret_sealed), previous_webhook_secret_expires_at: presentMerchant(merchant).previous_webhook_secret_expires_at };
  });
}

/** A new API key and client secret of the merchant, answered once; the audit row names the key by its prefix. */
export async function issueKey(deps: MerchantDeps, actor: Actor, merchantId: string): Promise<IssuedCredentials> {
  return deps.db.transaction(async (trx) => {
    await getMerchant(trx, merchantId);
    const issued = await issueCredentials(trx, merchantId);
    await recordAudit(trx, { merchantId, actor, action: 'api_key.issued', target: issued.key_prefix });
    return issued;
  });
}

/**
 * Revokes one of the merchant's active keys. A prefix that names no active key of this merchant
 * (unknown, revoked, or another merchant's) is not found, the same answer for every caller, so a
 * prefix tells nobody whose key it is.
 */
export async function revokeKey(deps: MerchantDeps, actor: Actor, merchantId: string, keyPrefix: string) {
  return deps.db.transaction(async (trx) => {
    await getMerchant(trx, merchantId);
    if ((await revokeApiKey(trx, merchantId, keyPrefix)) === 0) {
      throw new AdminNotFoundError('API key not found.', `No active API key with prefix ${keyPrefix} belongs to this merchant; the merchant's key list names its keys by prefix.`);
    }
    await recordAudit(trx, { merchantId, actor, action: 'api_key.revoked', target: keyPrefix });
    return { key_prefix: keyPrefix, revoked: true as const };
  });
}

/** The operator's page of a merchant's keys (404 for an unknown merchant or cursor). */
export async function listKeys(db: Db, merchantId: string, query: { limit: number; starting_after?: string }) {
  await getMerchant(db, merchantId);
  return apiKeysPage(db, merchantId, query, (prefix) => new AdminNotFoundError('Unknown starting_after.', `${prefix} is not a key prefix of merchant ${merchantId}.`));
}

/**
 * A page of the merchant's keys, newest first, the cursor a key's prefix (the only name the API
 * shows); a prefix that is not one of the merchant's keys is `unknownCursor`.
 */
export async function apiKeysPage(db: Db, merchantId: string, query: { limit: number; starting_after?: string }, unknownCursor: (prefix: string) => Error) {
  try {
    const { rows, hasMore } = await pageApiKeys(db, merchantId, { limit: query.limit, startingAfter: query.starting_after });
    return { results: rows.map(presentApiKey), has_more: hasMore, next_starting_after: hasMore ? rows[rows.length - 1]!.key_prefix : null };
  } catch (error) {
    if (error instanceof UnknownCursorError) throw unknownCursor(error.cursor);
    throw error;
  }
}

/** A key as lists show it: its prefix and dates, never the key. */
export function presentApiKey(k: Pick<ApiKeyRow, 'key_prefix' | 'created_at' | 'revoked_at'>) {
  return { key_prefix: k.key_prefix, created_at: k.created_at.toISOString(), revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null };
}

export function presentMerchant(m: MerchantRow) {
  const previousUntil = m.previous_webhook_signing_secret_expires_at;
  return {
    id: m.id,
    name: m.name,
    environment: m.environment,
    settings: presentSettings(m),
    // When a rolled secret still signs beside the current one (never the secrets themselves).
    previous_webhook_secret_expires_at: previousUntil && previousUntil.getTime() > Date.now() ? previousUntil.toISOString() : null,
    created_at: m.created_at.toISOString(),
  };
}
