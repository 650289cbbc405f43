import type { Service } from './harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from './http';

export const CARD = (number = '4242424242424242') => ({ type: 'credit_card', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } });
export const BANK = (accountNumber = '000123456789') => ({ type: 'bank_account', bank_account: { routing_number: '110000000', account_number: accountNumber, account_type: 'checking' } });
export const CRYPTO = (address = '0x52908400098527886E0F7030069857D2E4169EE7') => ({ type: 'crypto', crypto_wallet: { address, network: 'ethereum' } });

export interface Shop {
  merchant: MerchantCredentials;
  customerId: string;
}

/** A merchant (settings as given) with one customer. */
export async function openShop(service: Service, settings: Record<string, unknown> = {}, environment: 'sandbox' | 'production' = 'sandbox'): Promise<Shop> {
  const merchant = await onboard(service, { settings, environment });
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer() });
  if (customer.status !== 201) throw new Error(`customer: ${customer.text}`);
  return { merchant, customerId: customer.body.id };
}

export interface CreatedCheckout {
  id: string;
  client_secret: string;
  url: string;
  [key: string]: any;
}

export async function createCheckout(service: Service, shop: Shop, body: Record<string, unknown>): Promise<CreatedCheckout> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, body: { customer_id: shop.customerId, ...body } });
  if (res.status !== 201) throw new Error(`checkout: ${res.status} ${res.text}`);
  return res.body;
}

export function attempt(service: Service, checkout: CreatedCheckout, body: Record<string, unknown>) {
  return request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body, headers: { 'x-client-secret': checkout.client_secret } });
}

export function walletView(service: Service, checkout: CreatedCheckout) {
  return request(service.baseUrl, 'GET', `/wallet/v1/checkouts/${checkout.id}`, { headers: { 'x-client-secret': checkout.client_secret } });
}

export function getCharge(service: Service, shop: Shop, chargeId: string) {
  return request(service.baseUrl, 'GET', `/api/v1/charges/${chargeId}`, { token: shop.merchant.api_key });
}

/** Polls until `check` returns a value (not undefined/false), or fails after the timeout. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The event types recorded for a checkout, oldest first (the outbox, delivered or not). */
export async function recordedEvents(service: Service, checkoutId: string): Promise<Array<{ type: string; enabled: boolean; body: string; id: string; charge_id: string | null }>> {
  return service.deps.db('events').where({ checkout_id: checkoutId }).orderBy('seq');
}

/**
 * A checkout of the shop's customer and its card charge in `status`, written directly (real rows,
 * no workflow runs them), with `columns` set on the charge. Answers both rows as written.
 */
export async function placedCharge(service: Service, shop: Shop, options: { status?: string; type?: 'deposit' | 'withdrawal'; amountCents?: number; columns?: Record<string, unknown> } = {}) {
  const { status = 'created', type = 'withdrawal', amountCents = 3300, columns = {} } = options;
  const checkout = await createCheckout(service, shop, { type, fixed_amount_cents: amountCents });
  const [pm] = await service.deps.db('payment_methods').insert({
    id: `pm_${checkout.id}`, merchant_id: shop.merchant.id, customer_id: shop.customerId, payment_type: 'card',
    details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } }), fingerprint: 'fp', processor_token: 'sbx_approve_x',
  }).returning('*');
  const [charge] = await service.deps.db('charges').insert({
    id: `ch_${checkout.id}`, merchant_id: shop.merchant.id, checkout_id: checkout.id, customer_id: shop.customerId, payment_method_id: pm.id, attempt_key: checkout.id,
    amount_cents: amountCents, currency: 'USD', transaction_type: type === 'deposit' ? 'credit' : 'debit', status, processor: 'sandbox_alpha', ...columns,
  }).returning('*');
  return { checkout, charge };
}

/**
 * A card withdrawal's charge at `created`, written directly: no workflow runs it, so a test drives
 * its hold activities itself. `holdSent` marks its hold as already claimed.
 */
export async function createdWithdrawalCharge(service: Service, shop: Shop, options: { amountCents?: number; holdSent?: boolean } = {}) {
  return placedCharge(service, shop, { amountCents: options.amountCents, columns: { hold_sent_at: options.holdSent ? new Date() : null } });
}

const NYC = { latitude: 40.7128, longitude: -74.006 };
const VERIFIED_KYC = (customerId: string) => ({
  customer_id: customerId, first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-01-01', address_line_1: '1 Main St',
  city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true,
});

/** A card deposit of `amountCents`, paid: its charge id once the charge is succeeded. */
export async function paidCardDeposit(service: Service, shop: Shop, amountCents = 2500): Promise<string> {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: amountCents });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
  return chargeId;
}

/** A withdrawal of the shop's customer paused for review (KYC on file, a geo check passed; the shop reviews from 500 cents): its review id. */
export async function pausedForReview(service: Service, shop: Shop): Promise<string> {
  await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: shop.merchant.api_key, body: VERIFIED_KYC(shop.customerId) });
  const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1500 });
  await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, { body: NYC, headers: { 'x-client-secret': checkout.client_secret } });
  const paused = await attempt(service, checkout, { payment_method: CARD() });
  if (paused.status !== 202) throw new Error(`not paused for review: ${paused.status} ${paused.text}`);
  return paused.body.review.id as string;
}
