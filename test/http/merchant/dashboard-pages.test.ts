import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, getCharge, openShop, pausedForReview, waitFor, type Shop } from '../../support/fixtures';
import { WebhookReceiver } from '../../support/receiver';
import { ALL_ROLES, asMember, describeGuards, member, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const PAGES = ['', '/home', '/payments', '/customers', '/reviews', '/developers', '/team', '/audit'];

/** A page or asset under /merchant, redirects not followed. */
function get(path: string, who?: Pick<SignedIn, 'cookie'> | null) {
  return fetch(`${service.baseUrl}/merchant${path}`, { redirect: 'manual', headers: who ? { cookie: who.cookie } : {} });
}

function expectPageHeaders(res: Response): void {
  expect(res.headers.get('content-security-policy')).toContain("require-trusted-types-for 'script'; trusted-types 'none'");
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
}

/** A charge of the shop that ends succeeded (a deposit, or a withdrawal whose hold the receiver accepts). */
async function succeeded(shop: Shop, type: 'deposit' | 'withdrawal', amount: number): Promise<string> {
  const checkout = await createCheckout(service, shop, { type, fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded', 30_000, `${type} to succeed`);
  return chargeId;
}

let shop: Shop;
let people: Record<string, SignedIn>;
beforeAll(async () => {
  shop = await openShop(service, { webhook_url: receiver.url });
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
});

describeGuards('home', [{ name: 'GET /home', method: 'GET', path: () => '/home', allowed: ALL_ROLES, ok: 200, what: '' }], () => ({ service, merchantId: shop.merchant.id, people }));

describe('the merchant dashboard pages', () => {
  it.each(PAGES)('serves /merchant%s to a session with the dashboard headers (strict CSP, Trusted Types, never framed, no-store)', async (path) => {
    const res = await get(path, people.viewer);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expectPageHeaders(res);
    expect(await res.text()).toContain('/merchant/assets/app.js');
  });

  it("serves the home page's chart library (uPlot) from its package, behind the session like every asset", async () => {
    for (const file of ['uPlot.esm.js', 'uPlot.min.css']) {
      const res = await get(`/assets/vendor/uplot/${file}`, people.viewer);
      expect([file, res.status, res.headers.get('content-type')]).toEqual([file, 200, expect.stringMatching(file.endsWith('.js') ? /javascript/ : /text\/css/)]);
      expectPageHeaders(res);
      expect((await get(`/assets/vendor/uplot/${file}`)).status).toBe(401);
    }
    expect((await get('/assets/vendor/uplot/missing.js', people.viewer)).status).toBe(404);
  });

  it('redirects every page to /merchant/login (303) without a session, and serves the sign-in page to anyone', async () => {
    for (const path of PAGES) {
      const res = await get(path);
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 303, '/merchant/login']);
    }
    const login = await get('/login');
    expect(login.status).toBe(200);
    expectPageHeaders(login);
    expect(await login.text()).toContain('/merchant/assets/signin.js');
    expect((await get('/nope', people.owner)).status).toBe(404);
  });

  it("serves the sign-in page's assets to anyone and the others only with a session", async () => {
    for (const asset of ['signin.js', 'config.js', 'dashboard.css', 'merchant.css']) {
      const res = await get(`/assets/${asset}`);
      expect([asset, res.status]).toEqual([asset, 200]);
      expectPageHeaders(res);
    }
    for (const asset of ['app.js', 'api.js', 'shell.js', 'list.js', 'roles.js', 'home.js', 'developers.js', 'dom.js', 'ui.js', 'records.js', 'app.html']) {
      const res = await get(`/assets/${asset}`);
      expect([asset, res.status, ((await res.json()) as { error: string }).error]).toEqual([asset, 401, 'Sign in first.']);
      expect([asset, (await get(`/assets/${asset}`, people.viewer)).status]).toEqual([asset, 200]);
    }
    expect((await get('/assets/missing.js', people.viewer)).status).toBe(404);
  });

  it("sends a signed-out session and a removed person's session to the sign-in page", async () => {
    const leaving = await member(service, shop.merchant.id, 'viewer');
    const signingOut = await member(service, shop.merchant.id, 'viewer');
    expect((await get('', leaving)).status).toBe(200);
    expect((await asMember(service, people.owner!, 'DELETE', `/team/${leaving.user.id}`)).status).toBe(200);
    expect((await asMember(service, signingOut, 'DELETE', '/session')).status).toBe(200);
    for (const who of [leaving, signingOut]) {
      const res = await get('/payments', who);
      expect([res.status, res.headers.get('location')]).toEqual([303, '/merchant/login']);
      expect((await get('/assets/app.js', who)).status).toBe(401);
    }
  });
});

describe('GET /merchant/v1/home', () => {
  it("sums today's succeeded deposits and withdrawals apart, leaving out failed charges, yesterday's and another merchant's", async () => {
    const own = await openShop(service, { webhook_url: receiver.url });
    const viewer = await member(service, own.merchant.id, 'viewer');
    const empty = await asMember(service, viewer, 'GET', '/home');
    expect(empty.body).toEqual({
      day: new Date().toISOString().slice(0, 10), currency: 'USD',
      deposits: { count: 0, amount_cents: 0 }, withdrawals: { count: 0, amount_cents: 0 }, failed_deliveries: [],
      periods: ['today', 'last_7_days', 'last_30_days'].map((period) => ({ period, from: expect.any(String), gross_cents: 0, refunds_cents: 0, net_cents: 0, payments: 0, refunds: 0 })),
      chart: { days: expect.any(Array), gross_cents: Array(30).fill(0), refunds_cents: Array(30).fill(0) },
      open_reviews: { count: 0, amount_cents: 0, oldest_at: null },
    });

    await succeeded(own, 'deposit', 1000);
    await succeeded(own, 'deposit', 2550);
    const yesterday = await succeeded(own, 'deposit', 9900);
    await service.deps.db('charges').where({ id: yesterday }).update({ created_at: new Date(Date.now() - 86_400_000 - 60_000) });
    await succeeded(own, 'withdrawal', 700);
    const declined = await createCheckout(service, own, { type: 'deposit', fixed_amount_cents: 4400 });
    const failed = await attempt(service, declined, { payment_method: CARD('4000000000000002') });
    await waitFor(async () => (await getCharge(service, own, failed.body.charge.id)).body.status === 'failed');
    const other = await openShop(service, { webhook_url: receiver.url });
    await succeeded(other, 'deposit', 123_45);

    const home = await asMember(service, viewer, 'GET', '/home');
    expect([home.status, home.body.deposits, home.body.withdrawals]).toEqual([200, { count: 2, amount_cents: 3550 }, { count: 1, amount_cents: 700 }]);
  });

  it('sums gross, refunds and net for today and the last 7 and 30 days (taken and refunded today: $25, $25, $0), charts each day and counts open reviews', async () => {
    const own = await openShop(service, { review: { enabled: true, min_amount_cents: 500 } });
    const owner = await member(service, own.merchant.id, 'owner');
    const refunded = await succeeded(own, 'deposit', 2500);
    expect((await asMember(service, owner, 'POST', `/charges/${refunded}/refund`)).status).toBe(200);
    const today = await asMember(service, owner, 'GET', '/home');
    expect(today.body.periods[0]).toEqual({ period: 'today', from: new Date().toISOString().slice(0, 10), gross_cents: 2500, refunds_cents: 2500, net_cents: 0, payments: 1, refunds: 1 });

    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    const threeDays = await succeeded(own, 'deposit', 1000);
    await service.deps.db('charges').where({ id: threeDays }).update({ created_at: daysAgo(3) });
    const tenDays = await succeeded(own, 'deposit', 4000);
    await service.deps.db('charges').where({ id: tenDays }).update({ created_at: daysAgo(10) });
    const longAgo = await succeeded(own, 'deposit', 8000);
    await service.deps.db('charges').where({ id: longAgo }).update({ created_at: daysAgo(31) });
    const review = await pausedForReview(service, own);

    const home = await asMember(service, owner, 'GET', '/home');
    expect(home.body.periods.map((p: { period: string; gross_cents: number; refunds_cents: number; net_cents: number }) => [p.period, p.gross_cents, p.refunds_cents, p.net_cents])).toEqual([
      ['today', 2500, 2500, 0], ['last_7_days', 3500, 2500, 1000], ['last_30_days', 7500, 2500, 5000],
    ]);
    const { days, gross_cents: gross, refunds_cents: refunds } = home.body.chart;
    expect([days.length, days[29], days[26], gross[29], refunds[29], gross[26], gross[19]]).toEqual([30, new Date().toISOString().slice(0, 10), daysAgo(3).toISOString().slice(0, 10), 2500, 2500, 1000, 4000]);
    expect(home.body.open_reviews).toEqual({ count: 1, amount_cents: 1500, oldest_at: (await service.deps.db('reviews').where({ id: review }).first()).created_at.toISOString() });
  }, 120_000);

  it('lists the events whose delivery failed, newest first, with the last attempt; not delivered ones or another merchant\'s', async () => {
    const down = await new WebhookReceiver().start();
    down.responder = () => ({ status: 503 });
    try {
      const own = await openShop(service, { webhook_url: down.url });
      const other = await openShop(service, { webhook_url: down.url });
      const owner = await member(service, own.merchant.id, 'owner');
      const paid = async (s: Shop) => {
        const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 1200 });
        await attempt(service, checkout, { payment_method: CARD() });
        return waitFor(async () => {
          const event = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' }).first();
          return event?.delivery_status === 'failed' ? event : undefined;
        }, 60_000, 'delivery to fail');
      };
      const [first, theirs] = await Promise.all([paid(own), paid(other)]);
      const second = await paid(own);

      const home = await asMember(service, owner, 'GET', '/home');
      expect(home.body.failed_deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([second.id, first.id]);
      expect(home.body.failed_deliveries.map((d: { event_id: string }) => d.event_id)).not.toContain(theirs.id);
      expect(home.body.failed_deliveries[0]).toEqual({
        event_id: second.id, type: 'checkout.succeeded', checkout_id: second.checkout_id, created_at: new Date(second.created_at).toISOString(),
        attempts: second.delivery_attempts, last_attempt: { at: expect.any(String), http_status: 503, error: 'HTTP 503', response_excerpt: expect.any(String), url: down.url },
      });
      expect(second.delivery_attempts).toBeGreaterThan(1);
      expect(home.body.deposits).toEqual({ count: 2, amount_cents: 2400 });
    } finally {
      await down.stop();
    }
  }, 150_000);
});

describe('GET /merchant/v1/audit-log', () => {
  it("names each acting person by email while they are in the team; the operator's entries and a removed person's have none", async () => {
    const own = await openShop(service);
    const owner = await member(service, own.merchant.id, 'owner');
    const removed = await member(service, own.merchant.id, 'viewer');
    expect((await asMember(service, owner, 'DELETE', `/team/${removed.user.id}`)).status).toBe(200);
    const log = await asMember(service, owner, 'GET', '/audit-log?limit=50');
    const byActor = (actor: string, action: string) => log.body.results.find((e: { actor: string; action: string }) => e.actor === actor && e.action === action);
    expect(byActor(owner.user.id, 'session.created')).toMatchObject({ actor_email: owner.email });
    expect(byActor('admin', 'invitation.created')).toMatchObject({ actor_email: null });
    // Someone removed since: their entries keep their id; the entry of the removal names their email.
    expect(byActor(removed.user.id, 'session.created')).toMatchObject({ actor_email: null });
    expect(byActor(owner.user.id, 'member.removed')).toMatchObject({ actor_email: owner.email, details: { email: removed.email, role: 'viewer' } });
  });
});
