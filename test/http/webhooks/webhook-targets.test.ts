import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';
import { sendSignedWebhook } from '../../../src/webhooks/send';
import type { HostResolver, ResolvedAddress } from '../../../src/webhooks/target';

/**
 * Webhook targets are checked at every delivery and every hold, not only when saved, against a
 * resolver this test controls: a name that resolved to a public address when it was saved and to
 * an internal one later (DNS rebinding) is refused, and the refusal is a recorded failed attempt.
 */
const answers = new Map<string, string>();
const resolver: HostResolver = async (hostname) => {
  const address = answers.get(hostname);
  if (!address) throw new Error(`ENOTFOUND ${hostname}`);
  return [{ address, family: address.includes(':') ? 6 : 4 } satisfies ResolvedAddress];
};

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  service: { env: { NODE_ENV: 'production', ALLOW_PRIVATE_WEBHOOK_URLS: 'false', WEBHOOK_RETRY_INITIAL_MS: '100' }, resolveHost: resolver },
});

const PUBLIC = '93.184.216.34';
let hostCounter = 0;
function rebindingHost(): string {
  hostCounter += 1;
  return `rebind-${hostCounter}-${process.pid}.example.test`;
}

async function attemptsOf(merchantId: string, type: string) {
  const res = await request(service.baseUrl, 'GET', `/admin/v1/events?merchant_id=${merchantId}&type=${type}`, { token: service.adminToken });
  return res.body.results as Array<{ id: string; delivery_status: string; attempts: Array<{ http_status: number | null; error: string | null }> }>;
}

describe('DNS rebinding', () => {
  it('a delivery to a name that now resolves to 127.0.0.1 is refused and recorded as a failed attempt', async () => {
    const host = rebindingHost();
    answers.set(host, PUBLIC);
    const shop = await openShop(service, { webhook_url: `http://${host}:${new URL(receiver.url).port}/webhooks` });
    answers.set(host, '127.0.0.1');

    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1200 });
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.body.charge.status).toBe('succeeded');

    const [event] = await waitFor(async () => {
      const events = await attemptsOf(shop.merchant.id, 'checkout.succeeded');
      return events.length === 1 && events[0]!.delivery_status === 'failed' && events;
    }, 20_000, 'the delivery to give up');
    expect(event!.attempts).toHaveLength(5);
    for (const a of event!.attempts) {
      expect(a.http_status).toBeNull();
      expect(a.error).toBe(`target refused: host ${host} resolves to 127.0.0.1 (loopback), which is not a public address`);
    }
    expect(receiver.forCheckout(checkout.id)).toHaveLength(0);
  });

  it('a hold to a name that now resolves to 169.254.169.254 is refused: the charge fails with insufficient_funds', async () => {
    const host = rebindingHost();
    answers.set(host, PUBLIC);
    const shop = await openShop(service, { webhook_url: `http://${host}:${new URL(receiver.url).port}/webhooks` });
    answers.set(host, '169.254.169.254');

    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2500 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    const [hold] = await attemptsOf(shop.merchant.id, 'checkout.hold');
    expect(hold!.delivery_status).toBe('failed');
    expect(hold!.attempts).toEqual([expect.objectContaining({ http_status: null, error: expect.stringContaining('169.254.169.254 (linkLocal)') })]);
    expect(receiver.forCheckout(checkout.id)).toHaveLength(0);
  });

  it.each([
    '127.0.0.1', '10.0.0.8', '169.254.169.254', '64:ff9b::7f00:1', 'fec0::1', '::ffff:127.0.0.1', '::1', 'fd00::1', '100.64.0.1',
    // IPv4-compatible IPv6 (::a.b.c.d) embedding a private address (audit regression: these passed as public).
    '::127.0.0.1', '::169.254.169.254', '::a9fe:a9fe', '::10.0.0.8',
  ])(
    'refuses saving a webhook URL whose host resolves to %s',
    async (address) => {
      const host = rebindingHost();
      answers.set(host, address);
      const shop = await openShop(service);
      const res = await request(service.baseUrl, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, {
        token: service.adminToken,
        body: { webhook_url: `https://${host}/hooks` },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toContain(`resolves to ${address}`);
    },
  );
});

// Audit regression: an IPv4-compatible IPv6 literal (::a.b.c.d) passed the production filter.
it.each(['http://[::127.0.0.1]/hooks', 'http://[::169.254.169.254]/latest/meta-data', 'https://[0:0:0:0:0:0:a00:8]/hooks', 'http://[64:ff9b::169.254.169.254]/', 'http://[2002:a9fe:a9fe::]/'])(
  'refuses saving the webhook URL %s (an IPv6 literal embedding a private IPv4 address)',
  async (url) => {
    const shop = await openShop(service);
    const res = await request(service.baseUrl, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { token: service.adminToken, body: { webhook_url: url } });
    expect([url, res.status]).toEqual([url, 422]);
    expect(res.body.error).toContain('which is not a public address');
    const saved = await request(service.baseUrl, 'GET', `/admin/v1/merchants/${shop.merchant.id}`, { token: service.adminToken });
    expect(saved.body.settings?.webhook_url).not.toBe(url);
  },
);

describe('pinning the connection to the checked address', () => {
  it('connects to the address the check resolved, never asking DNS again (the Host header keeps the name)', async () => {
    const host = rebindingHost();
    let lookups = 0;
    const counting: HostResolver = async (name) => {
      lookups += 1;
      return resolver(name);
    };
    answers.set(host, '127.0.0.1');
    const port = new URL(receiver.url).port;
    const result = await sendSignedWebhook({ url: `http://${host}:${port}/pinned`, body: '{"ping":1}', secrets: ['wss_test'], policy: { allowPrivate: true }, resolve: counting });
    expect(result).toMatchObject({ ok: true, httpStatus: 200, error: null });
    expect(lookups).toBe(1);
    const received = receiver.requests.find((r) => r.rawBody === '{"ping":1}')!;
    expect(received.headers.host).toBe(`${host}:${port}`);
  });

  // Audit regression: the connection was pinned to the first address only, so a name whose first
  // address takes no connection (an IPv6 address the service cannot reach, `localhost` as ::1
  // beside a receiver on 127.0.0.1) failed every delivery and every hold, where any HTTP client
  // goes on to the name's next address.
  it('goes on to the next checked address of the name when the first takes no connection, and to no other', async () => {
    const host = rebindingHost();
    const dualStack: HostResolver = async () => [{ address: '::1', family: 6 }, { address: '127.0.0.2', family: 4 }, { address: '127.0.0.1', family: 4 }];
    const port = new URL(receiver.url).port;
    const result = await sendSignedWebhook({ url: `http://${host}:${port}/dual`, body: '{"dual":1}', secrets: ['wss_test'], policy: { allowPrivate: true }, resolve: dualStack });
    expect(result).toMatchObject({ ok: true, httpStatus: 200, error: null });
    expect(receiver.requests.filter((r) => r.rawBody === '{"dual":1}')).toHaveLength(1);

    // Only the addresses the check saw: none of them answering is a failed attempt, never a new lookup.
    const unreachable: HostResolver = async () => [{ address: '::1', family: 6 }, { address: '127.0.0.2', family: 4 }];
    const refused = await sendSignedWebhook({ url: `http://${host}:${port}/none`, body: '{"dual":2}', secrets: ['wss_test'], policy: { allowPrivate: true }, resolve: unreachable });
    expect(refused).toMatchObject({ ok: false, outcome: 'network_error', httpStatus: null });
  });

  // Audit regression: the 10 s began after the name lookup, so a slow resolver stretched an
  // attempt (a hold's included) past its activity's time limit.
  it('counts the name lookup in the attempt\'s timeout', async () => {
    const port = new URL(receiver.url).port;
    const slow = (ms: number): HostResolver => async (hostname) => {
      await new Promise((r) => setTimeout(r, ms));
      return resolver(hostname);
    };
    const host = rebindingHost();
    answers.set(host, '127.0.0.1');
    const before = receiver.requests.length;
    const lookupTooSlow = await sendSignedWebhook({ url: `http://${host}:${port}/slow-dns`, body: '{"dns":1}', secrets: ['wss_test'], policy: { allowPrivate: true }, resolve: slow(400), timeoutMs: 200 });
    expect(lookupTooSlow).toMatchObject({ ok: false, outcome: 'timeout', httpStatus: null, error: expect.stringContaining(`resolving ${host}`) });
    expect(lookupTooSlow.durationMs).toBeLessThan(350);
    expect(receiver.requests.length).toBe(before);

    // A lookup and an answer each inside the limit, together over it.
    receiver.responder = () => ({ status: 200, delayMs: 250 });
    const together = await sendSignedWebhook({ url: `http://${host}:${port}/slow-both`, body: '{"dns":2}', secrets: ['wss_test'], policy: { allowPrivate: true }, resolve: slow(250), timeoutMs: 400 });
    receiver.responder = () => ({ status: 200 });
    expect(together).toMatchObject({ ok: false, outcome: 'timeout', httpStatus: null });
    expect(together.durationMs).toBeLessThan(480);
  });

  it('does not connect at all when the policy refuses the address', async () => {
    const before = receiver.requests.length;
    const host = rebindingHost();
    answers.set(host, '::ffff:127.0.0.1');
    const result = await sendSignedWebhook({ url: `http://${host}:${new URL(receiver.url).port}/x`, body: '{}', secrets: ['wss_test'], policy: { allowPrivate: false }, resolve: resolver });
    expect(result).toMatchObject({ ok: false, httpStatus: null, error: expect.stringContaining('(ipv4Mapped, embedding 127.0.0.1: loopback)') });
    expect(receiver.requests.length).toBe(before);
  });
});
