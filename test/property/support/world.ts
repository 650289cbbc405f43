import type { Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type JsonResponse, type MerchantCredentials } from '../../support/http';
import type { MerchantEndpoint } from './merchant-endpoint';

/** Any answer slower than this is an attempt (or call) left without an answer. */
const ANSWER_TIMEOUT_MS = 40_000;

export class PropertyFailure extends Error {}

/** The real system of one property run: the service, this run's merchant and its endpoint route. */
export interface World {
  service: Service;
  endpoint: MerchantEndpoint;
  route: string;
  merchant: MerchantCredentials;
  customerId: string;
  trace: string[];
  /** Every signing secret the merchant was given (onboarding, then each roll): a delivery verifies with one of them. */
  secrets: string[];
}

/** One HTTP call of a command: fails the property on a 5xx or on no answer at all. */
export async function call(world: World, method: string, path: string, options: Parameters<typeof request>[3] = {}): Promise<JsonResponse> {
  const timeout = new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new PropertyFailure(`[answered] no answer within ${ANSWER_TIMEOUT_MS} ms: ${method} ${path}`)), ANSWER_TIMEOUT_MS);
    t.unref();
  });
  const res = await Promise.race([request(world.service.baseUrl, method, path, options), timeout]);
  expectThat(res.status < 500, `${method} ${path} answered ${res.status}: ${res.text}`, 'no_5xx');
  return res;
}

export function admin(world: World, method: string, path: string, body?: unknown) {
  return call(world, method, `/admin/v1${path}`, { token: world.service.adminToken, ...(body === undefined ? {} : { body }) });
}

export function api(world: World, method: string, path: string, body?: unknown, rawBody?: string) {
  return call(world, method, `/api/v1${path}`, { token: world.merchant.api_key, ...(body === undefined ? {} : { body }), ...(rawBody === undefined ? {} : { rawBody }) });
}

export function wallet(world: World, checkout: { id: string; secret: string }, method: string, suffix = '', body?: unknown) {
  return call(world, method, `/wallet/v1/checkouts/${checkout.id}${suffix}`, { headers: { 'x-client-secret': checkout.secret }, ...(body === undefined ? {} : { body }) });
}

export async function openWorld(service: Service, endpoint: MerchantEndpoint, route: string, settings: Record<string, unknown>, environment: 'sandbox' | 'production' = 'sandbox'): Promise<World> {
  const merchant = await onboard(service, { name: `Property ${route}`, settings, environment });
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer() });
  if (customer.status !== 201) throw new Error(`customer: ${customer.text}`);
  return { service, endpoint, route, merchant, customerId: customer.body.id, trace: [], secrets: [merchant.webhook_signing_secret] };
}

/**
 * Rules (invariants and predictions) not checked in this process: PROPERTY_IGNORE=name,... lets an
 * exploration of code with a known bug look past it and find the next one.
 */
export const IGNORED: ReadonlySet<string> = new Set((process.env.PROPERTY_IGNORE ?? '').split(',').filter(Boolean));

/** Fails the property with `message` unless `ok` (or the rule is ignored). */
export function expectThat(ok: boolean, message: string, rule = 'answer'): void {
  if (!ok && !IGNORED.has(rule)) throw new PropertyFailure(`[${rule}] ${message}`);
}

/** The model's prediction for one answer: one of `statuses`, and `{error}` on a 422. */
export function allowed(res: JsonResponse, statuses: Set<number>, what: string, rule = 'status'): void {
  expectThat(statuses.has(res.status), `${what}: answered ${res.status} ${res.text.slice(0, 300)}; the model allows ${[...statuses].join(' or ')}`, rule);
  if (res.status === 422) expectThat(typeof res.body?.error === 'string', `${what}: a 422 without {error}: ${res.text}`, 'error_body');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
