import type { AppDeps } from '../app-deps';
import { settingsCatalog } from '../admin/catalog';
import { AdminNotFoundError, MerchantNotFoundError, NotFoundError } from '../http/errors';
import { apiKeysPage, getMerchant, presentMerchant } from '../merchants/service';
import { getEvent, listEvents } from '../readback/service';
import type { PageRequest } from '../storage/pages';
import type { MerchantSession } from '../identity';

/**
 * What the Developers section of the merchant dashboard reads, scoped to the session's merchant;
 * its changes are the merchants and events services' own, as the admin API's are.
 */

/** Beside `checkout.failed` for a merchant whose checkout flows include a withdrawal: it is how a refused hold is heard. */
export const CHECKOUT_FAILED_WITHDRAWAL_NOTE =
  'For withdrawals, a hold notification not answered with success fails the charge while it is still created: checkout.failed is sent, not checkout.release_hold. Enable it to hear about insufficient funds.';

/** A page of the account's keys, newest first; the cursor is a key's prefix. */
export function listMerchantKeys(deps: AppDeps, session: MerchantSession, query: { limit: number; starting_after?: string }) {
  return apiKeysPage(deps.db, session.merchant.id, query, (prefix) => new MerchantNotFoundError('API key not found.', `starting_after ${prefix} is not a key prefix of this account.`));
}

function presentWebhook(merchant: ReturnType<typeof presentMerchant>) {
  return { webhook_url: merchant.settings.webhook_url, previous_webhook_secret_expires_at: merchant.previous_webhook_secret_expires_at };
}

export async function getWebhook(deps: AppDeps, session: MerchantSession) {
  return presentWebhook(presentMerchant(await getMerchant(deps.db, session.merchant.id)));
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
