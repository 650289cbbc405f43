import type { Service } from './harness';
import { request } from './http';
import { attempt, CARD, createCheckout, waitFor, type Shop } from './fixtures';

/** Helpers for subscription tests: subscribe through the wallet, drive the test clock, read back. */
export function subscriptionHelpers(service: () => Service) {
  const admin = (method: string, path: string, body?: unknown) =>
    request(service().baseUrl, method, `/admin/v1${path}`, { token: service().adminToken, ...(body === undefined ? {} : { body }) });

  /** A sandbox customer's clock reads `now` from here on; the next subscription is anchored there. */
  async function setClock(shop: Shop, now: string): Promise<void> {
    const res = await admin('POST', `/customers/${shop.customerId}/test_clock`, { now });
    if (res.status !== 200) throw new Error(`test clock: ${res.status} ${res.text}`);
  }

  async function subscribe(
    shop: Shop,
    options: { interval?: string; interval_count?: number; price_cents?: number; card?: string } = {},
  ): Promise<{ checkout: Awaited<ReturnType<typeof createCheckout>>; id: string; chargeId: string }> {
    const checkout = await createCheckout(service(), shop, {
      type: 'deposit',
      line_items: [{ name: 'Plan', price_cents: options.price_cents ?? 1000, quantity: 1 }],
      subscription_data: { interval: options.interval ?? 'month', interval_count: options.interval_count ?? 1 },
    });
    const paid = await attempt(service(), checkout, { payment_method: CARD(options.card) });
    if (paid.status !== 201 || paid.body.charge.status !== 'succeeded') throw new Error(`first charge: ${paid.status} ${paid.text}`);
    const row = await waitFor(async () => service().deps.db('subscriptions').where({ checkout_id: checkout.id }).first(), 15_000, 'the subscription');
    return { checkout, id: row.id as string, chargeId: paid.body.charge.id as string };
  }

  const read = async (id: string) => {
    const res = await admin('GET', `/subscriptions/${id}`);
    if (res.status !== 200) throw new Error(`read subscription: ${res.status} ${res.text}`);
    return res.body;
  };

  const advance = (id: string, body: { to?: string; seconds?: number }) => admin('POST', `/subscriptions/${id}/test_clock/advance`, body);

  /** Waits until the subscription satisfies `check` (renewals run behind the clock's advance). */
  const until = (id: string, check: (sub: any) => boolean, what = 'subscription state', timeoutMs = 60_000) =>
    waitFor(async () => {
      const sub = await read(id);
      return check(sub) ? sub : undefined;
    }, timeoutMs, what);

  return { admin, setClock, subscribe, read, advance, until };
}

/** ISO time `ms` after `iso`. */
export const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;
