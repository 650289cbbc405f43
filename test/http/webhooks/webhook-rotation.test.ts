import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { ReceivedRequest, WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor, type Shop } from '../../support/fixtures';
import { verifySignature, WebhookSignatureError } from '../../../src/webhooks/signature';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const roll = (merchantId: string, body: unknown) =>
  request(service.baseUrl, 'POST', `/admin/v1/merchants/${merchantId}/webhook_secret/roll`, { token: service.adminToken, body });

async function deliveredFor(shop: Shop, type: 'deposit' | 'withdrawal'): Promise<ReceivedRequest> {
  const checkout = await createCheckout(service, shop, { type, fixed_amount_cents: 1500 });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  expect(res.status).toBe(201);
  const wanted = type === 'deposit' ? 'checkout.succeeded' : 'checkout.hold';
  return waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === wanted), 15_000, wanted);
}

const header = (r: ReceivedRequest) => r.headers['service-webhook-signature'] as string;
const accepts = (r: ReceivedRequest, secret: string) => () => verifySignature({ rawBody: r.rawBody, header: header(r), secret });

describe('rolling the webhook signing secret', () => {
  it('answers a new wss_ secret once; during the overlap deliveries and holds carry v1 for both secrets', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const old = shop.merchant.webhook_signing_secret;

    const rolled = await roll(shop.merchant.id, { overlap_seconds: 3600 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.webhook_signing_secret).toMatch(/^wss_/);
    expect(rolled.body.webhook_signing_secret).not.toBe(old);
    const fresh = rolled.body.webhook_signing_secret as string;
    expect(Date.parse(rolled.body.previous_webhook_secret_expires_at) - Date.now()).toBeGreaterThan(3500_000);

    const merchant = await request(service.baseUrl, 'GET', `/admin/v1/merchants/${shop.merchant.id}`, { token: service.adminToken });
    expect(merchant.body.previous_webhook_secret_expires_at).toBe(rolled.body.previous_webhook_secret_expires_at);
    // Both answers document the field (the merchant's GET left it out; found by an audit).
    const doc = (await request(service.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    for (const [path, method] of [['/admin/v1/merchants/{id}', 'get'], ['/admin/v1/merchants/{id}/webhook_secret/roll', 'post']] as const) {
      expect(JSON.stringify(doc.paths[path][method].responses)).toContain('previous_webhook_secret_expires_at');
    }
    expect(merchant.text).not.toContain(fresh);

    for (const type of ['deposit', 'withdrawal'] as const) {
      const delivery = await deliveredFor(shop, type);
      expect(header(delivery)).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(delivery.headers['service_signature']).toBe(header(delivery));
      expect(accepts(delivery, fresh)).not.toThrow();
      expect(accepts(delivery, old)).not.toThrow();
      expect(accepts(delivery, 'wss_someone_else')).toThrow(WebhookSignatureError);
    }
  });

  it('with no overlap the old secret stops signing at once', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const rolled = await roll(shop.merchant.id, { overlap_seconds: 0 });
    const delivery = await deliveredFor(shop, 'deposit');
    expect(header(delivery)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(accepts(delivery, rolled.body.webhook_signing_secret)).not.toThrow();
    expect(accepts(delivery, shop.merchant.webhook_signing_secret)).toThrow(WebhookSignatureError);
  });

  // A second roll during the overlap shifted previous <- current <- new: the secret the merchant had
  // deployed stopped signing at once, and every delivery (and hold) then failed verification.
  it('refuses a second roll during the overlap with a hint, keeps signing with the deployed secret, and rolls when forced', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const deployed = shop.merchant.webhook_signing_secret;
    const first = await roll(shop.merchant.id, { overlap_seconds: 3600 });
    expect(first.status).toBe(201);

    const second = await roll(shop.merchant.id, { overlap_seconds: 3600 });
    expect(second.status).toBe(422);
    expect(second.body).toMatchObject({
      error: 'The signing secret was rolled less than its overlap ago.',
      hint: expect.stringContaining(first.body.previous_webhook_secret_expires_at),
    });
    expect(second.body.hint).toContain('"force": true');
    // Nothing changed: deliveries still carry the deployed secret's signature beside the new one.
    const delivery = await deliveredFor(shop, 'deposit');
    expect(accepts(delivery, deployed)).not.toThrow();
    expect(accepts(delivery, first.body.webhook_signing_secret)).not.toThrow();

    // Forced: the operator means it (the deployed secret leaked, say); the secret rolled first now overlaps.
    const forced = await roll(shop.merchant.id, { overlap_seconds: 600, force: true });
    expect(forced.status).toBe(201);
    const after = await deliveredFor(shop, 'deposit');
    expect(accepts(after, forced.body.webhook_signing_secret)).not.toThrow();
    expect(accepts(after, first.body.webhook_signing_secret)).not.toThrow();
    expect(accepts(after, deployed)).toThrow(WebhookSignatureError);
    // After an overlap of 0 there is no overlap to protect: the next roll goes through.
    expect((await roll(shop.merchant.id, { overlap_seconds: 0, force: true })).status).toBe(201);
    expect((await roll(shop.merchant.id, { overlap_seconds: 60 })).status).toBe(201);
    expect((await roll(shop.merchant.id, { force: 'yes' })).status).toBe(422);
  });

  it('with an Idempotency-Key a retried roll answers the same secret and rolls once', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const deployed = shop.merchant.webhook_signing_secret;
    const key = `roll-${shop.merchant.id}`;
    const keyed = (body: unknown) =>
      request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/webhook_secret/roll`, { token: service.adminToken, body, headers: { 'idempotency-key': key } });
    const [a, b] = await Promise.all([keyed({ overlap_seconds: 3600 }), keyed({ overlap_seconds: 3600 })]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.webhook_signing_secret).toBe(a.body.webhook_signing_secret);
    const later = await keyed({ overlap_seconds: 3600 });
    expect([later.status, later.headers.get('idempotent-replayed'), later.body]).toEqual([201, 'true', a.body]);
    const delivery = await deliveredFor(shop, 'deposit');
    expect(header(delivery)).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(accepts(delivery, deployed)).not.toThrow();
    expect(accepts(delivery, a.body.webhook_signing_secret)).not.toThrow();
    // The same key with another body is refused; a key is an admin key, apart from any merchant's.
    expect((await keyed({ overlap_seconds: 60 })).status).toBe(422);
  });

  it('refuses bad bodies and unknown merchants', async () => {
    const shop = await openShop(service);
    expect((await roll(shop.merchant.id, { overlap_seconds: -1 })).status).toBe(422);
    expect((await roll(shop.merchant.id, { overlap_seconds: 8 * 24 * 3600 })).status).toBe(422);
    expect((await roll(shop.merchant.id, { overlap_seconds: 60, extra: true })).status).toBe(422);
    expect((await roll('mer_nope', { overlap_seconds: 60 })).status).toBe(404);
    const unauthenticated = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/webhook_secret/roll`, { body: {} });
    expect(unauthenticated.status).toBe(401);
  });
});
