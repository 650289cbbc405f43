import { queueMail } from '../../src/identity/mail-outbox';
import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';
import type { WebhookReceiver } from '../support/receiver';
import { onboard, request } from '../support/http';
import { countMailsTo } from '../support/mailpit';
import { member, PASSWORD, signInRequest, uniqueEmail } from '../support/merchant-accounts';
import { createCheckout, openShop, recordedEvents, waitFor } from '../support/fixtures';

/**
 * What each process keeps for itself, with two API processes (the second a child process of the
 * real entry point) and two workers (each with its sweepers) on one database: every limit counted
 * through one API holds on the other, every key answered by one is answered alike by the other,
 * and the worker sweeps that race each other do each thing once. Where the rest is tested across
 * processes: a revoked key and a settings change (test/http/platform/credential-cache.test.ts), a
 * signed-out dashboard session (test/http/admin/dashboard-auth.test.ts), the outbox sweepers
 * (test/resilience/replicas.test.ts), the reconciler's lease (test/resilience/reconciler.test.ts).
 */
const ADMIN_MAX_FAILURES = 6;
const SIGN_IN_MAX_PER_ACCOUNT = 4;

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  service: {
    replicas: 2,
    env: {
      ADMIN_TOKEN_MAX_FAILURES: String(ADMIN_MAX_FAILURES),
      ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: '60',
      MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: String(SIGN_IN_MAX_PER_ACCOUNT),
      MERCHANT_SIGN_IN_FAILURE_WINDOW_SECONDS: '60',
      MAIL_SWEEP_MS: '100',
    },
  },
  timeoutMs: 300_000,
});

/** The two API processes by their own addresses: [the in-process one, the child]. */
function apis(): [string, string] {
  const [first, second] = service.proxy!.backends;
  return [first!, second!];
}

/** A client address of its own per test (the app believes X-Forwarded-For from loopback). */
let lastAddress = 0;
const newAddress = () => `203.0.113.${++lastAddress}`;

describe('limits counted on one API hold on the other', () => {
  const adminCall = (url: string, address: string, token: string) => request(url, 'GET', '/admin/v1/merchants', { token, headers: { 'x-forwarded-for': address } });

  it('wrong admin tokens sent to one API block the address on the other, the right token included', async () => {
    const [one, two] = apis();
    const address = newAddress();
    for (let i = 1; i <= ADMIN_MAX_FAILURES; i += 1) expect([i, (await adminCall(one, address, 'wrong-token-0123456789')).status]).toEqual([i, 401]);
    // The other API never saw this address: its next wrong token is counted in PostgreSQL, which knows the block.
    expect((await adminCall(two, address, 'wrong-token-0123456789')).status).toBe(429);
    expect((await adminCall(two, address, service.adminToken)).status).toBe(429);
    expect((await adminCall(one, address, service.adminToken)).status).toBe(429);
    expect((await adminCall(two, newAddress(), service.adminToken)).status).toBe(200);
  });

  it("wrong passwords spread over both APIs count against one account's limit", async () => {
    const [one, two] = apis();
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    for (let i = 1; i <= SIGN_IN_MAX_PER_ACCOUNT; i += 1) {
      const res = await signInRequest({ ...service, baseUrl: i % 2 ? one : two }, { email: someone.email, password: `wrong password ${i}` }, { 'x-forwarded-for': newAddress() });
      expect([i, res.status]).toEqual([i, 401]);
    }
    for (const api of [one, two]) {
      const res = await signInRequest({ ...service, baseUrl: api }, { email: someone.email, password: PASSWORD }, { 'x-forwarded-for': newAddress() });
      expect([api, res.status, res.body.error]).toEqual([api, 429, 'Too many failed sign-ins for this account.']);
    }
  });
});

describe('an Idempotency-Key means the same on both APIs', () => {
  it('the same create sent to both APIs at once makes one checkout, answered alike by both', async () => {
    const shop = await openShop(service);
    const [one, two] = apis();
    const send = (url: string, key: string) => request(url, 'POST', '/api/v1/checkouts', {
      token: shop.merchant.api_key,
      body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 700 },
      headers: { 'idempotency-key': key },
    });
    const keys = Array.from({ length: 8 }, (_, i) => `two-apis-${i}-${Date.now()}`);
    const pairs = await Promise.all(keys.map((key) => Promise.all([send(one, key), send(two, key)])));
    for (const [a, b] of pairs) {
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body.id).toBe(a.body.id);
      expect(b.body.client_secret).toBe(a.body.client_secret);
    }
    const made = await service.deps.db('checkouts').where({ merchant_id: shop.merchant.id }).count<{ count: string }[]>('* as count');
    expect(Number(made[0]!.count)).toBe(keys.length);
    // Later, each API replays the other's answer.
    const again = await send(two, keys[0]!);
    expect([again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([201, pairs[0]![0].body.id, 'true']);
  });
});

describe("the workers' sweeps race and each thing happens once", () => {
  it('mails left unsent are sent once each, by whichever sweeper claims them first', async () => {
    const recipients = Array.from({ length: 10 }, () => uniqueEmail('sweep'));
    // Committed and never tried, as when the process that wrote them stopped before sending.
    const ids = await Promise.all(recipients.map((to) => service.deps.db.transaction((trx) => queueMail(trx, service.deps.sealer, { to, subject: 'Two sweepers', text: 'https://example.test/x' }, new Date(Date.now() + 3_600_000)))));
    await waitFor(async () => (await service.deps.db('outgoing_mails').whereIn('id', ids).whereNull('sent_at')).length === 0, 20_000, 'every mail sent');
    expect((await service.deps.db('outgoing_mails').whereIn('id', ids)).map((m: { attempts: number }) => m.attempts)).toEqual(ids.map(() => 1));
    for (const to of recipients) expect([to, await countMailsTo(to, /^Two sweepers$/)]).toEqual([to, 1]);
  });

  it('checkouts whose expiry timers run late are expired once each, both sweeps racing for them', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 60, enabled_events: ['checkout.expired'] });
    const checkouts = await Promise.all(Array.from({ length: 10 }, () => createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 })));
    // The database's deadline passes now while each workflow's timer waits a minute more.
    await service.deps.db('checkouts').whereIn('id', checkouts.map((c) => c.id)).update({ expires_at: service.deps.db.fn.now() });
    await waitFor(async () => (await service.deps.db('checkouts').whereIn('id', checkouts.map((c) => c.id)).whereNot({ state: 'expired' })).length === 0, 20_000, 'every checkout expired');
    for (const checkout of checkouts) {
      const expired = (await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.expired');
      expect([checkout.id, expired.length]).toEqual([checkout.id, 1]);
    }
  });
});
