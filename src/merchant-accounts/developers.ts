import type { AppDeps } from '../app-deps';
import { settingsCatalog } from '../admin/catalog';
import { resendEvent } from '../events/service';
import { AdminNotFoundError, MerchantNotFoundError, NotFoundError } from '../http/errors';
import { apiKeysPage, changeSettings, getMerchant, issueKey, presentMerchant, revokeKey, rollSigningSecret } from '../merchants/service';
import { findActiveApiKeyByPrefix } from '../storage/api-keys';
import type { RollSigningSecretBody } from '../merchants/schemas';
import { getEvent, listEvents } from '../readback/service';
import type { PageRequest } from '../storage/pages';
import { targetPolicy } from '../webhooks/target';
import { recordAudit } from '../identity/audit';
import type { MerchantSession } from '../identity/sessions';

/**
 * The Developers section of the merchant dashboard: the same services the admin API calls, scoped
 * to the session's merchant, each change with its audit row in the change's transaction.
 */

/** Beside `checkout.failed` for a merchant whose checkout flows include a withdrawal: it is how a refused hold is heard. */
export const CHECKOUT_FAILED_WITHDRAWAL_NOTE =
  'For withdrawals, a hold notification not answered with success fails the charge while it is still created: checkout.failed is sent, not checkout.release_hold. Enable it to hear about insufficient funds.';

const actorOf = (session: MerchantSession) => ({ kind: 'user' as const, id: session.user.id });
const options = (deps: AppDeps) => ({ sealer: deps.sealer, webhookPolicy: targetPolicy(deps.config), resolveHost: deps.resolveHost });

/** A page of the account's keys, newest first; the cursor is a key's prefix. */
export function listMerchantKeys(deps: AppDeps, session: MerchantSession, query: { limit: number; starting_after?: string }) {
  return apiKeysPage(deps.db, session.merchant.id, query, (prefix) => new MerchantNotFoundError('API key not found.', `starting_after ${prefix} is not a key prefix of this account.`));
}

/** A new API key and client secret, answered once. */
export async function issueMerchantKey(deps: AppDeps, session: MerchantSession) {
  const merchantId = session.merchant.id;
  return deps.db.transaction(async (trx) => {
    const issued = await issueKey(trx, merchantId);
    await recordAudit(trx, { merchantId, actor: actorOf(session), action: 'api_key.issued', target: issued.key_prefix });
    return issued;
  });
}

/** Revokes one of the merchant's active keys; any other prefix (another merchant's too) is 404. */
export async function revokeMerchantKey(deps: AppDeps, session: MerchantSession, keyPrefix: string) {
  const merchantId = session.merchant.id;
  return deps.db.transaction(async (trx) => {
    if (!(await findActiveApiKeyByPrefix(trx, merchantId, keyPrefix))) throw new MerchantNotFoundError('API key not found.', `No active key with prefix ${keyPrefix} in this account; GET /merchant/v1/developers/api_keys lists them.`);
    await revokeKey(trx, merchantId, keyPrefix);
    await recordAudit(trx, { merchantId, actor: actorOf(session), action: 'api_key.revoked', target: keyPrefix });
    return { key_prefix: keyPrefix, revoked: true as const };
  });
}

function presentWebhook(merchant: ReturnType<typeof presentMerchant>) {
  return { webhook_url: merchant.settings.webhook_url, previous_webhook_secret_expires_at: merchant.previous_webhook_secret_expires_at };
}

export async function getWebhook(deps: AppDeps, session: MerchantSession) {
  return presentWebhook(presentMerchant(await getMerchant(deps.db, session.merchant.id)));
}

export async function setWebhookUrl(deps: AppDeps, session: MerchantSession, webhookUrl: string | null) {
  const merchantId = session.merchant.id;
  return deps.db.transaction(async (trx) => {
    await changeSettings(trx, options(deps), merchantId, { webhook_url: webhookUrl }, (t, changes) =>
      recordAudit(t, { merchantId, actor: actorOf(session), action: 'webhook_url.changed', target: merchantId, details: { changes } }));
    return presentWebhook(presentMerchant(await getMerchant(trx, merchantId)));
  });
}

/** Rolls the signing secret (answered once); the previous one signs beside it until the overlap ends. */
export async function rollMerchantSigningSecret(deps: AppDeps, session: MerchantSession, body: RollSigningSecretBody) {
  const merchantId = session.merchant.id;
  return deps.db.transaction(async (trx) => {
    const rolled = await rollSigningSecret(trx, deps.sealer, merchantId, body);
    await recordAudit(trx, { merchantId, actor: actorOf(session), action: 'signing_secret.rolled', target: merchantId, details: { previous_expires_at: rolled.previous_webhook_secret_expires_at, forced: body.force } });
    return rolled;
  });
}

/** The enabled-events choices grouped as the contract's catalog, each marked on or off for this merchant. */
export async function enabledEvents(deps: AppDeps, merchantId: string) {
  const { settings } = await getMerchant(deps.db, merchantId);
  const takesWithdrawals = settings.checkout_flows.some((flow) => flow.endsWith('_withdrawal'));
  const enabled = new Set<string>(settings.enabled_events);
  const catalog = settingsCatalog();
  return {
    always_on_events: catalog.always_on_events,
    groups: catalog.optional_event_groups.map((group) => ({
      name: group.name,
      events: group.types.map((type) => ({ type, enabled: enabled.has(type), note: type === 'checkout.failed' && takesWithdrawals ? CHECKOUT_FAILED_WITHDRAWAL_NOTE : null })),
    })),
  };
}

export async function setEnabledEvents(deps: AppDeps, session: MerchantSession, events: string[]) {
  const merchantId = session.merchant.id;
  await deps.db.transaction(async (trx) => {
    await changeSettings(trx, options(deps), merchantId, { enabled_events: events as never }, (t, changes) =>
      recordAudit(t, { merchantId, actor: actorOf(session), action: 'enabled_events.changed', target: merchantId, details: { changes } }));
  });
  return enabledEvents(deps, merchantId);
}

/** The merchant's whole event log (sent or not), newest first, each event with every delivery attempt. */
export function eventLogPage(deps: AppDeps, merchantId: string, query: { limit: number; starting_after?: string; type?: string; checkout_id?: string }) {
  const page: PageRequest = { limit: query.limit, startingAfter: query.starting_after };
  return asMerchantNotFound(listEvents(deps.db, merchantId, page, { type: query.type, checkout_id: query.checkout_id }, false));
}

export const merchantEvent = (deps: AppDeps, merchantId: string, id: string) => asMerchantNotFound(getEvent(deps.db, merchantId, id));

/** The merchant API's readback answers an unknown id 422 (the contract's rule) and the admin API's reads 404; the dashboard answers 404 as its own. */
export async function asMerchantNotFound<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof AdminNotFoundError) throw new MerchantNotFoundError(error.message, error.hint);
    throw error;
  }
}

/** Resends one of the merchant's events as a new delivery series, audited in the series' transaction; another merchant's is 404. */
export async function resendMerchantEvent(deps: AppDeps, session: MerchantSession, id: string) {
  const merchantId = session.merchant.id;
  await merchantEvent(deps, merchantId, id);
  return resendEvent(deps, id, (trx, series) => recordAudit(trx, { merchantId, actor: actorOf(session), action: 'event.resent', target: id, details: { series } }));
}
