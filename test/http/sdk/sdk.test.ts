// The SDK against the real service: typed calls of the merchant API, and webhooks verified with
// constructEvent through a roll of the signing secret.
import { constructEvent, createPaymentsClient, WebhookSignatureError, type PaymentsClient, type WebhookEvent } from '@payments-service/sdk';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, waitFor } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

async function merchantWithClient(settings: Record<string, unknown> = {}): Promise<{ merchant: MerchantCredentials; client: PaymentsClient }> {
  const merchant = await onboard(service, { settings });
  return { merchant, client: createPaymentsClient({ apiKey: merchant.api_key, baseUrl: service.baseUrl }) };
}

async function createCustomer(client: PaymentsClient) {
  const fields = uniqueCustomer();
  const { data, error, response } = await client.POST('/api/v1/customers', {
    body: { email: fields.email, first_name: fields.first_name, last_name: fields.last_name, phone_number: fields.phone_number, internal_id: `int-${fields.phone_number}` },
  });
  expect([response.status, error]).toEqual([201, undefined]);
  return data!;
}

describe('the typed client', () => {
  it('creates a customer and finds it by search; an error answers the typed error body', async () => {
    const { client } = await merchantWithClient();
    const customer = await createCustomer(client);
    expect(customer.id).toMatch(/^cus_/);

    const { data } = await client.GET('/api/v1/customers/search', { params: { query: { email: customer.email!.toUpperCase() } } });
    expect(data?.results.map((found) => found.id)).toEqual([customer.id]);
    const none = await client.GET('/api/v1/customers/search', { params: { query: { internal_id: 'nobody' } } });
    expect(none.data?.results).toEqual([]);

    const duplicate = await client.POST('/api/v1/customers', { body: { email: customer.email!, first_name: 'Ada', last_name: 'Lovelace' } });
    expect(duplicate.response.status).toBe(422);
    expect(duplicate.error).toMatchObject({ error: expect.any(String), request_id: expect.any(String) });
  });

  it('refuses a wrong API key with the contract\'s 422; sends the headers given, the API key\'s Authorization first', async () => {
    const client = createPaymentsClient({ apiKey: 'key_unknown', baseUrl: `${service.baseUrl}/`, headers: { Authorization: 'Bearer key_other', 'X-Request-Id': 'sdk-test-request-1' } });
    const { error, response } = await client.GET('/api/v1/charges/{id}', { params: { path: { id: 'ch_x' } } });
    expect(response.status).toBe(422);
    expect(error?.error).toBe('API key not found.');
    expect([response.headers.get('x-request-id'), error?.request_id]).toEqual(['sdk-test-request-1', 'sdk-test-request-1']);
  });

  it('creates a checkout, which the customer pays by sandbox card in the wallet, and refunds the charge', async () => {
    const { client } = await merchantWithClient();
    const customer = await createCustomer(client);
    const checkout = await client.POST('/api/v1/checkouts', { body: { customer_id: customer.id, type: 'deposit', fixed_amount_cents: 2500 } });
    expect(checkout.response.status).toBe(201);
    expect(checkout.data).toMatchObject({ type: 'deposit', fixed_amount_cents: 2500, id: expect.stringMatching(/^chk_/) });

    const paid = await attempt(service, checkout.data!, { payment_method: CARD() });
    expect(paid.status).toBe(201);
    const chargeId = paid.body.charge.id as string;
    await waitFor(async () => (await client.GET('/api/v1/charges/{id}', { params: { path: { id: chargeId } } })).data?.status === 'succeeded');

    const refunded = await client.POST('/api/v1/charges/{id}/refund', { params: { path: { id: chargeId } } });
    expect(refunded.response.status).toBe(200);
    expect(refunded.data).toMatchObject({ id: chargeId, status: 'refunded', amount_cents: 2500, transaction_type: 'credit' });
    const again = await client.POST('/api/v1/charges/{id}/refund', { params: { path: { id: chargeId } } });
    expect([again.response.status, again.error?.error]).toEqual([422, 'Unable to refund charge.']);
  });
});

describe('webhooks.constructEvent', () => {
  it('verifies deliveries with the old and the new secret during a roll, under either header, and refuses any other secret', async () => {
    const { merchant, client } = await merchantWithClient({ webhook_url: receiver.url });
    const old = merchant.webhook_signing_secret;
    const rolled = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${merchant.id}/webhook_secret/roll`, { token: service.adminToken, body: { overlap_seconds: 3600 } });
    expect(rolled.status).toBe(201);
    const fresh = rolled.body.webhook_signing_secret as string;

    const customer = await createCustomer(client);
    const checkout = (await client.POST('/api/v1/checkouts', { body: { customer_id: customer.id, type: 'deposit', fixed_amount_cents: 1500 } })).data!;
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    const delivery = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.succeeded'), 15_000, 'checkout.succeeded');

    // During the overlap every delivery carries one v1 per secret.
    expect(delivery.headers['service-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of [old, fresh, [old, fresh]]) {
      const event: WebhookEvent = constructEvent(delivery.rawBody, delivery.headers, secret);
      if (event.type !== 'checkout.succeeded') throw new Error(`unexpected ${event.type}`);
      // Narrowed by type: data.charge is the charge event's charge.
      expect([event.event_id, event.data.id, event.data.charge.status, event.data.charge.amount_cents]).toEqual([delivery.body.event_id, checkout.id, 'succeeded', 1500]);
    }
    const legacyOnly = { service_signature: delivery.headers['service_signature'] as string };
    expect(constructEvent(Buffer.from(delivery.rawBody), legacyOnly, fresh).type).toBe('checkout.succeeded');
    expect(() => constructEvent(delivery.rawBody, delivery.headers, 'wss_someone_else')).toThrow(WebhookSignatureError);
    expect(() => constructEvent(`${delivery.rawBody} `, delivery.headers, fresh)).toThrow(expect.objectContaining({ reason: 'no_matching_signature' }));
    // Replayed an hour later, the same delivery is refused.
    expect(() => constructEvent(delivery.rawBody, delivery.headers, fresh, { now: () => Date.now() + 3_600_000 })).toThrow(
      expect.objectContaining({ reason: 'timestamp_out_of_tolerance' }),
    );
  });
});
