import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, createdWithdrawalCharge, getCharge, openShop, waitFor, type Shop } from '../../support/fixtures';
import { request, uniqueCustomer } from '../../support/http';
import { ALL_ROLES, asMember, describeGuards, errorWithHint, member, type GuardedRoute, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

/** A checkout paid by card, its charge succeeded (or failed, for a declining card). */
async function paid(shop: Shop, body: Record<string, unknown>, card = CARD(), customerId = shop.customerId) {
  const checkout = await createCheckout(service, shop, { customer_id: customerId, ...body });
  const res = await attempt(service, checkout, { payment_method: card });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => ['succeeded', 'failed'].includes((await getCharge(service, shop, chargeId)).body.status));
  return { id: checkout.id as string, chargeId };
}

let shop: Shop;
let people: Record<string, SignedIn>;
let owner: SignedIn;
let viewer: SignedIn;
/** The shop's payments, oldest first. */
let made: Record<'deposit' | 'purchase' | 'declined' | 'open' | 'subscription' | 'withdrawal', string>;
let formulaCustomer: string;

beforeAll(async () => {
  shop = await openShop(service);
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
  ({ owner, viewer } = people as Record<'owner' | 'viewer', SignedIn>);
  // A customer whose name a spreadsheet would run as a formula.
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: uniqueCustomer({ first_name: '=HYPERLINK(1)', last_name: 'Grace' }) });
  formulaCustomer = customer.body.id;
  const deposit = await paid(shop, { type: 'deposit', fixed_amount_cents: 2500 });
  const purchase = await paid(shop, { type: 'deposit', line_items: [{ name: 'T-shirt "Classic", red', price_cents: 1200, quantity: 2 }] }, CARD('5555555555554444'), formulaCustomer);
  expect((await asMember(service, owner, 'POST', `/charges/${purchase.chargeId}/refund`)).status).toBe(200);
  const declined = await paid(shop, { type: 'deposit', fixed_amount_cents: 700 }, CARD('4000000000000002'));
  const open = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
  // A subscription with its first period and a renewal paid; the first period refunded: partly refunded.
  const subscription = await paid(shop, { type: 'deposit', line_items: [{ name: 'Plan', price_cents: 1500, quantity: 1 }], subscription_data: { interval: 'month', interval_count: 1 } });
  const first = await service.deps.db('charges').where({ id: subscription.chargeId }).first();
  await service.deps.db('charges').insert({ ...first, id: `${first.id}_renewal`, attempt_key: `${first.attempt_key}_renewal`, subscription_period: 1, created_at: new Date() });
  expect((await asMember(service, owner, 'POST', `/charges/${subscription.chargeId}/refund`)).status).toBe(200);
  const withdrawal = await createdWithdrawalCharge(service, shop, { amountCents: 4100 });
  made = { deposit: deposit.id, purchase: purchase.id, declined: declined.id, open: open.id, subscription: subscription.id, withdrawal: withdrawal.checkout.id };
});

const ids = (body: { results: Array<{ id: string }> }) => body.results.map((p) => p.id);
const list = async (query = '') => {
  const res = await asMember(service, viewer, 'GET', `/payments${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

const ROUTES: GuardedRoute[] = [
  { name: 'GET /payments', method: 'GET', path: () => '/payments', allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'GET /payments.csv', method: 'GET', path: () => '/payments.csv', allowed: ALL_ROLES, ok: 200, what: '' },
];

describe('payments as one list', () => {
  describeGuards('payment list', ROUTES, () => ({ service, merchantId: shop.merchant.id, people }));

  it('lists one row per checkout, newest first, with its status read from refunds and charges, its customer, card and line items', async () => {
    const body = await list();
    expect(ids(body)).toEqual([made.withdrawal, made.subscription, made.open, made.declined, made.purchase, made.deposit]);
    const byId = Object.fromEntries(body.results.map((p: { id: string }) => [p.id, p]));
    expect(Object.fromEntries(Object.entries(made).map(([name, id]) => [name, byId[id].status]))).toEqual({
      deposit: 'succeeded', purchase: 'refunded', declined: 'failed', open: 'open', subscription: 'partially_refunded', withdrawal: 'processing',
    });
    expect(Object.fromEntries(Object.entries(made).map(([name, id]) => [name, byId[id].type]))).toEqual({
      deposit: 'deposit', purchase: 'purchase', declined: 'deposit', open: 'deposit', subscription: 'subscription', withdrawal: 'withdrawal',
    });
    expect(byId[made.purchase]).toMatchObject({
      amount_cents: 2400, paid_cents: 2400, refunded_cents: 2400, currency: 'USD',
      customer: { id: formulaCustomer, first_name: '=HYPERLINK(1)', last_name: 'Grace' },
      payment_method: { payment_type: 'card', card: { brand: 'mastercard', last4: '4444' } },
      line_items: [{ name: 'T-shirt "Classic", red', quantity: 2, total_amount_cents: 2400 }],
    });
    expect(byId[made.subscription]).toMatchObject({ amount_cents: 1500, paid_cents: 3000, refunded_cents: 1500 });
    expect(byId[made.open]).toMatchObject({ payment_method: null, charge_id: null, amount_cents: 900 });
    expect(byId[made.deposit].charge_id).toBe((await getCharge(service, shop, byId[made.deposit].charge_id)).body.id);
  });

  it('filters by status, type, day range, amount range, customer and search, and pages', async () => {
    expect(ids(await list('?status=refunded'))).toEqual([made.purchase]);
    expect(ids(await list('?status=partially_refunded'))).toEqual([made.subscription]);
    expect(ids(await list('?status=failed'))).toEqual([made.declined]);
    expect(ids(await list('?type=purchase'))).toEqual([made.purchase]);
    expect(ids(await list('?type=withdrawal'))).toEqual([made.withdrawal]);
    expect(ids(await list('?type=deposit'))).toEqual([made.open, made.declined, made.deposit]);
    expect(ids(await list('?amount_min_cents=1500&amount_max_cents=2500'))).toEqual([made.subscription, made.purchase, made.deposit]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(ids(await list(`?created_from=${today}&created_to=${today}`))).toHaveLength(6);
    expect(ids(await list(`?created_from=${tomorrow}`))).toEqual([]);
    expect(ids(await list(`?created_to=2020-01-01`))).toEqual([]);
    expect(ids(await list(`?customer_id=${formulaCustomer}`))).toEqual([made.purchase]);
    expect(ids(await list('?q=SHIRT'))).toEqual([made.purchase]);
    expect(ids(await list('?q=grace'))).toEqual([made.purchase]);
    expect(ids(await list(`?q=${made.deposit}`))).toEqual([made.deposit]);
    const declinedCharge = (await service.deps.db('charges').where({ checkout_id: made.declined }).first()).id;
    expect(ids(await list(`?q=${declinedCharge}`))).toEqual([made.declined]);

    const first = await list('?limit=4');
    expect([ids(first), first.has_more]).toEqual([[made.withdrawal, made.subscription, made.open, made.declined], true]);
    const second = await list(`?limit=4&starting_after=${first.next_starting_after}`);
    expect([ids(second), second.has_more]).toEqual([[made.purchase, made.deposit], false]);
  });

  it('refuses bad filters with {error, hint}, and never lists another merchant\'s payments', async () => {
    for (const query of ['status=completed', 'type=refund', 'created_from=yesterday', 'amount_min_cents=-1', 'amount_min_cents=2.5', 'created_from=2026-02-01&created_to=2026-01-01', 'amount_min_cents=500&amount_max_cents=100']) {
      for (const path of ['/payments', '/payments.csv']) {
        const res = await asMember(service, viewer, 'GET', `${path}?${query}`);
        expect([path, query, res.status, res.body]).toEqual([path, query, 422, errorWithHint]);
      }
    }
    const other = await openShop(service);
    const theirs = await paid(other, { type: 'deposit', fixed_amount_cents: 100 });
    expect(ids(await list(`?q=${theirs.id}`))).toEqual([]);
    expect((await asMember(service, viewer, 'GET', `/payments?starting_after=${theirs.id}`)).status).toBe(404);
  });

  it('exports the filtered payments as CSV: a header, one row each, quoted where needed, formulas escaped', async () => {
    const res = await asMember(service, viewer, 'GET', '/payments.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,created_at,type,status,amount,refunded,currency,customer_name,customer_email,customer_id,payment_method,items,charge_id');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([made.withdrawal, made.subscription, made.open, made.declined, made.purchase, made.deposit]);
    const purchase = lines.find((line) => line.startsWith(made.purchase))!;
    expect(purchase).toContain(',purchase,refunded,24.00,24.00,USD,');
    expect(purchase).toContain(`,'=HYPERLINK(1) Grace,`);
    expect(purchase).toContain(',mastercard ending 4444,"2 x T-shirt ""Classic"", red",');

    const refunded = await asMember(service, viewer, 'GET', '/payments.csv?status=refunded&type=purchase');
    expect(refunded.text.trimEnd().split('\r\n').slice(1).map((line) => line.split(',')[0])).toEqual([made.purchase]);
    const none = await asMember(service, viewer, 'GET', '/payments.csv?created_to=2020-01-01');
    expect(none.text.trimEnd().split('\r\n')).toHaveLength(1);
  });
});
