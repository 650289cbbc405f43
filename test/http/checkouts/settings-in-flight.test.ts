// Audit regression: a wallet attempt read its merchant once, before the processor call, and recorded
// the outcome's events with that row. Settings changed while the processor answered were not
// honoured: an event disabled meanwhile was still delivered, one whose webhook URL was set meanwhile
// was recorded as having none (never delivered), and a secret rolled meanwhile (no overlap) signed
// the first attempt. The events now go by the merchant as it stands in the recording transaction.
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { request } from '../../support/http';
import { attempt, CARD, createCheckout, openShop, waitFor, type Shop } from '../../support/fixtures';
import { verifySignature, signatureFromHeaders } from '../../../src/webhooks/signature';

let service: Service;
let receiver: WebhookReceiver;
// A processor that takes 1.5 s to answer (SANDBOX_LATENCY_MS), as a real one may.
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { SANDBOX_LATENCY_MS: '1500' } } });
const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, ...(body === undefined ? {} : { body }) });

/** Starts a card attempt, runs `change` while the processor is answering, and answers the attempt. */
async function changeWhileCharging(shop: Shop, card: string, change: () => Promise<void>) {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1500 });
  const paying = attempt(service, checkout, { payment_method: CARD(card) });
  await waitFor(async () => (await service.deps.db('charges').where({ checkout_id: checkout.id }).first())?.status === 'created', 5_000, 'the charge at the processor');
  await change();
  const res = await paying;
  expect(res.status).toBe(201);
  return { checkout, charge: res.body.charge };
}

it('an opt-in event disabled while the processor answers is recorded as not enabled and never delivered', async () => {
  const shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.failed'] });
  const { checkout, charge } = await changeWhileCharging(shop, '4000000000000002', async () => {
    expect((await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { enabled_events: [] })).status).toBe(200);
  });
  expect(charge.status).toBe('failed');
  const row = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.failed' }).first();
  expect(row).toMatchObject({ enabled: false, delivery_status: 'not_enabled' });
  await new Promise((r) => setTimeout(r, 500));
  expect(receiver.forCheckout(checkout.id)).toHaveLength(0);
});

it('a webhook URL set while the processor answers receives the event', async () => {
  const shop = await openShop(service, { webhook_url: null });
  const { checkout, charge } = await changeWhileCharging(shop, '4242424242424242', async () => {
    expect((await admin('PATCH', `/merchants/${shop.merchant.id}/settings`, { webhook_url: receiver.url })).status).toBe(200);
  });
  expect(charge.status).toBe('succeeded');
  await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.succeeded'), 10_000, 'checkout.succeeded');
});

it('a secret rolled with no overlap while the processor answers signs the first attempt', async () => {
  const shop = await openShop(service, { webhook_url: receiver.url });
  let secret = '';
  const { checkout } = await changeWhileCharging(shop, '4242424242424242', async () => {
    const rolled = await admin('POST', `/merchants/${shop.merchant.id}/webhook_secret/roll`, { overlap_seconds: 0 });
    expect(rolled.status).toBe(201);
    secret = rolled.body.webhook_signing_secret;
  });
  const delivered = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.succeeded'), 10_000, 'checkout.succeeded');
  expect(() => verifySignature({ rawBody: delivered.rawBody, header: signatureFromHeaders(delivered.headers), secret })).not.toThrow();
  const attempts = await service.deps.db('event_delivery_attempts').where({ event_id: delivered.body.event_id });
  expect(attempts.map((a) => a.attempt)).toEqual([1]);
});
