import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, openShop, recordedEvents, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const MASTERCARD = '5555555555554444';

async function deposit(shop: Shop, paymentMethod: Record<string, unknown>) {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 5000 });
  return (await attempt(service, checkout, { payment_method: paymentMethod })).body.charge;
}

async function withdraw(shop: Shop, paymentMethod: Record<string, unknown>) {
  const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
  return { checkout, res: await attempt(service, checkout, { payment_method: paymentMethod }) };
}

describe('withdrawal destinations', () => {
  it('previously_deposited: refuses an instrument the customer never deposited from successfully (422 with a hint, no charge)', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, withdrawal_destinations: 'previously_deposited' });
    expect((await deposit(shop, CARD())).status).toBe('succeeded');
    // A declined deposit does not make its card a destination.
    expect((await deposit(shop, CARD('4000000000000002'))).status).toBe('failed');

    for (const method of [CARD(MASTERCARD), CARD('4000000000000002'), BANK()]) {
      const { checkout, res } = await withdraw(shop, method);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('This payment method cannot receive withdrawals.');
      expect(res.body.hint).toMatch(/already used for a successful deposit/);
      expect(await recordedEvents(service, checkout.id)).toEqual([]);
      const charges = await service.deps.db('charges').where({ checkout_id: checkout.id });
      expect(charges).toHaveLength(0);
    }
  });

  it('previously_deposited: pays out to the card the customer deposited from; the hold names the destination', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, withdrawal_destinations: 'previously_deposited' });
    const deposited = await deposit(shop, CARD());
    const { checkout, res } = await withdraw(shop, CARD());
    expect(res.status).toBe(201);
    expect(['held', 'succeeded']).toContain(res.body.charge.status);

    const hold = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.hold')!;
    expect(hold.body.data.charge.payment_method).toEqual({
      fingerprint: deposited.payment_method.fingerprint,
      payment_type: res.body.charge.payment_method.payment_type,
      last4: '4242',
    });
    expect(res.body.charge.payment_method.fingerprint).toBe(deposited.payment_method.fingerprint);
  });

  it('any (the default): a withdrawal may go to a new instrument, and its hold still names it', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const settings = await request(service.baseUrl, 'GET', `/admin/v1/merchants/${shop.merchant.id}`, { token: service.adminToken });
    expect(settings.body.settings.withdrawal_destinations).toBe('any');
    const { checkout, res } = await withdraw(shop, BANK('000987654321'));
    expect(res.status).toBe(201);
    const hold = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.hold')!;
    expect(hold.body.data.charge.payment_method).toMatchObject({ payment_type: 'bank_account', last4: '4321' });
  });

  it('refuses an unknown value of the setting', async () => {
    const shop = await openShop(service);
    const res = await request(service.baseUrl, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, {
      token: service.adminToken,
      body: { withdrawal_destinations: 'anywhere' },
    });
    expect(res.status).toBe(422);
  });
});
