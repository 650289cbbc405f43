import { KYC_NAME_MISMATCH, restrictCustomer } from '../../../src/customers/restrictions';
import { dispatchEvents } from '../../../src/events/dispatch';
import type { CustomerRow } from '../../../src/storage/customers';
import { findMerchant } from '../../../src/storage/merchants';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { waitFor } from '../../support/fixtures';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';

let service: Service;
let receiver: WebhookReceiver;

const unrestrict = (customerId: string, token = service.adminToken) =>
  request(service.baseUrl, 'POST', `/admin/v1/customers/${customerId}/unrestrict`, { token });

async function newCustomer(m: MerchantCredentials): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Restricts as the lead's KYC gate will: inside a transaction, dispatching after the commit. */
async function restrict(m: MerchantCredentials, customerId: string, reason = KYC_NAME_MISMATCH): Promise<string[]> {
  const merchant = (await findMerchant(service.deps.db, m.id))!;
  const ids = await service.deps.db.transaction((trx) => restrictCustomer(trx, merchant, { id: customerId }, reason));
  await dispatchEvents(service.deps, ids);
  return ids;
}

const customerRow = (id: string): Promise<CustomerRow> => service.deps.db('customers').where({ id }).first();
const customerEvents = (id: string) => service.deps.db('events').where({ customer_id: id }).orderBy('seq');
const enabledBoth = () => ({ webhook_url: receiver.url, enabled_events: ['customer.restricted', 'customer.unrestricted'] });

useServiceWithReceiver((env) => ({ service, receiver } = env));

describe('restrictCustomer (for the KYC gate)', () => {
  it('sets the restriction and records customer.restricted in the caller\'s transaction', async () => {
    const m = await onboard(service, { settings: enabledBoth() });
    const customerId = await newCustomer(m);
    const ids = await restrict(m, customerId);
    expect(ids).toHaveLength(1);
    const row = await customerRow(customerId);
    expect(row.restriction_reason).toBe(KYC_NAME_MISMATCH);
    expect(row.restricted_at).toBeInstanceOf(Date);

    const delivered = await waitFor(() => receiver.ofType('customer.restricted').find((r) => r.body.data.customer.id === customerId), 20_000, 'customer.restricted');
    expect(delivered.body.event_id).toBe(ids[0]);
    expect(Object.keys(delivered.body.data)).toEqual(['customer', 'reason_code', 'restricted_at']);
    expect(delivered.body.data).toMatchObject({ reason_code: KYC_NAME_MISMATCH, restricted_at: row.restricted_at!.toISOString() });
  });

  it('changes nothing and records nothing for a customer already restricted', async () => {
    const m = await onboard(service, { settings: enabledBoth() });
    const customerId = await newCustomer(m);
    await restrict(m, customerId);
    const before = await customerRow(customerId);
    expect(await restrict(m, customerId, 'SOME_OTHER_REASON')).toEqual([]);
    expect(await customerRow(customerId)).toEqual(before);
    expect((await customerEvents(customerId)).map((e) => e.type)).toEqual(['customer.restricted']);
  });

  it('records the event undelivered when not enabled, and rolls back with the caller', async () => {
    const m = await onboard(service);
    const customerId = await newCustomer(m);
    expect(await restrict(m, customerId)).toEqual([]);
    expect(await customerEvents(customerId)).toEqual([expect.objectContaining({ type: 'customer.restricted', enabled: false })]);

    const other = await newCustomer(m);
    const merchant = (await findMerchant(service.deps.db, m.id))!;
    await expect(
      service.deps.db.transaction(async (trx) => {
        await restrictCustomer(trx, merchant, { id: other }, KYC_NAME_MISMATCH);
        throw new Error('checkout gate failed later');
      }),
    ).rejects.toThrow('checkout gate failed later');
    expect((await customerRow(other)).restriction_reason).toBeNull();
    expect(await customerEvents(other)).toEqual([]);
  });

  it('refuses a customer of another merchant', async () => {
    const m = await onboard(service);
    const foreign = await newCustomer(await onboard(service));
    const merchant = (await findMerchant(service.deps.db, m.id))!;
    await expect(service.deps.db.transaction((trx) => restrictCustomer(trx, merchant, { id: foreign }, KYC_NAME_MISMATCH))).rejects.toThrow(/does not belong/);
  });
});

describe('POST /admin/v1/customers/{id}/unrestrict', () => {
  it('lifts the restriction, answers the customer unrestricted and delivers customer.unrestricted', async () => {
    const m = await onboard(service, { settings: enabledBoth() });
    const customerId = await newCustomer(m);
    await restrict(m, customerId);
    const res = await unrestrict(customerId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: customerId, restricted: false, restriction_reason: null });
    expect(await customerRow(customerId)).toMatchObject({ restriction_reason: null, restricted_at: null });

    const events = await customerEvents(customerId);
    expect(events.map((e) => [e.type, e.enabled])).toEqual([['customer.restricted', true], ['customer.unrestricted', true]]);
    const delivered = await waitFor(() => receiver.ofType('customer.unrestricted').find((r) => r.body.data.customer.id === customerId), 20_000, 'customer.unrestricted');
    expect(delivered.body.event_id).toBe(events[1].id);
    expect(Object.keys(delivered.body.data)).toEqual(['customer', 'reason_code', 'unrestricted_at']);
    expect(delivered.body.data.reason_code).toBe(KYC_NAME_MISMATCH);
    expect(delivered.body.data).not.toHaveProperty('charge');
  });

  it('records customer.unrestricted undelivered when the merchant has not enabled it', async () => {
    const m = await onboard(service, { settings: { webhook_url: receiver.url } });
    const customerId = await newCustomer(m);
    await restrict(m, customerId);
    expect((await unrestrict(customerId)).status).toBe(200);
    const events = await customerEvents(customerId);
    expect(events.map((e) => [e.type, e.delivery_status])).toEqual([['customer.restricted', 'not_enabled'], ['customer.unrestricted', 'not_enabled']]);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests.filter((r) => r.body?.data?.customer?.id === customerId)).toEqual([]);
  });

  it('answers 422 {error, hint} for a customer who is not restricted (including a second unrestrict)', async () => {
    const m = await onboard(service);
    const customerId = await newCustomer(m);
    expect(await unrestrict(customerId)).toMatchObject({ status: 422, body: { error: 'Customer is not restricted.', hint: expect.any(String) } });
    await restrict(m, customerId);
    expect((await unrestrict(customerId)).status).toBe(200);
    expect((await unrestrict(customerId)).status).toBe(422);
    expect((await customerEvents(customerId)).map((e) => e.type)).toEqual(['customer.restricted', 'customer.unrestricted']);
  });

  it('answers 404 for an unknown customer and 401 without the admin token', async () => {
    expect(await unrestrict('cus_nobody')).toMatchObject({ status: 404, body: { error: 'Customer not found.', hint: expect.any(String) } });
    const m = await onboard(service);
    const customerId = await newCustomer(m);
    await restrict(m, customerId);
    expect((await unrestrict(customerId, 'wrong-token')).status).toBe(401);
    expect((await unrestrict(customerId, m.api_key)).status).toBe(401);
    expect((await customerRow(customerId)).restriction_reason).toBe(KYC_NAME_MISMATCH);
  });

  it('lets a customer be restricted again after being lifted, with a new event', async () => {
    const m = await onboard(service, { settings: enabledBoth() });
    const customerId = await newCustomer(m);
    await restrict(m, customerId);
    await unrestrict(customerId);
    expect(await restrict(m, customerId)).toHaveLength(1);
    expect((await customerEvents(customerId)).map((e) => e.type)).toEqual(['customer.restricted', 'customer.unrestricted', 'customer.restricted']);
  });
});
