import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchEnvironment } from '../support/environment';
import { alternateWithFloor, type Run } from '../support/floors';
import { runClosedLoop } from '../support/samples';
import { defineScenario } from '../support/scenario';

const CARD = { type: 'credit_card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' } };

interface State {
  receiver: Server;
  url: string;
  /** event_id -> time the receiver got checkout.succeeded (ms since epoch). */
  received: Map<string, { at: number; chargeId: string }>;
  /** Latencies of the floor's signed POSTs: receipt - the sender's timestamp in the body. */
  floorSamples: number[];
}

/**
 * End to end, from a charge's success to the merchant's receipt of checkout.succeeded: the
 * charge's commit time (updated_at, written with the move and its outbox row) to the moment a
 * local receiver on 127.0.0.1 has the signed webhook (outbox -> delivery workflow -> activity ->
 * HTTP). Customers pay concurrently for the whole window; throughput is webhooks received per second.
 * Floor: one signed POST (the service's own sendSignedWebhook) from the floor process to the same
 * receiver, timed from just before signing to receipt, at the same concurrency.
 */
export default defineScenario<State>({
  name: 'webhook-latency',
  startsWorkflows: true,
  description: 'charge succeeded (commit) -> merchant receives checkout.succeeded; deliveries per second',
  async setup() {
    const received = new Map<string, { at: number; chargeId: string }>();
    const floorSamples: number[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event_id: string; type: string; sent_at?: number; data: { charge?: { id: string } } };
        if (body.type === 'floor') floorSamples.push(at - body.sent_at!);
        if (body.type === 'checkout.succeeded' && body.data.charge) received.set(body.event_id, { at, chargeId: body.data.charge.id });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
    return { receiver, url, received, floorSamples };
  },
  async run(env, state) {
    const merchant = await env.onboard('Bench webhook merchant', { webhook_url: state.url });
    const customer = await env.request<{ id: string }>('POST', '/api/v1/customers', {
      token: merchant.api_key,
      body: { email: `bench.webhooks.${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    const connections = Math.min(...env.settings.connections);
    try {
      return [
        await alternateWithFloor(env, {
          scenario: 'webhook-latency',
          connections,
          note: `latency = receipt - charge commit; req/s = webhooks delivered per second while ${connections} customers pay; floor: one signed POST`,
          service: (seconds) => measure(env, state, merchant.api_key, customer.body.id, connections, seconds),
          floor: (seconds) => measureFloor(env, state, merchant.webhook_signing_secret, connections, seconds),
        }),
      ];
    } finally {
      await new Promise<void>((resolve) => state.receiver.close(() => resolve()));
    }
  },
});

async function measureFloor(env: BenchEnvironment, state: State, secret: string, connections: number, seconds: number): Promise<Run> {
  const before = state.floorSamples.length;
  let failures = 0;
  await runClosedLoop(connections, seconds * 1000, async () => {
    const res = await fetch(`${env.floorUrl}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: state.url, secret }) });
    if (res.status !== 201) failures++;
  });
  return { samples: state.floorSamples.slice(before), seconds, failures };
}

async function measure(env: BenchEnvironment, state: State, apiKey: string, customerId: string, connections: number, seconds: number): Promise<Run> {
  const chargeIds: string[] = [];
  const windowStart = Date.now();
  await runClosedLoop(connections, seconds * 1000, async () => {
    const checkout = await env.request<{ id: string; client_secret: string }>('POST', '/api/v1/checkouts', {
      token: apiKey,
      body: { customer_id: customerId, type: 'deposit', fixed_amount_cents: 1000 },
    });
    const res = await fetch(`${env.baseUrl}/wallet/v1/checkouts/${checkout.body.id}/attempts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-secret': checkout.body.client_secret },
      body: JSON.stringify({ payment_method: CARD }),
    });
    const body = (await res.json()) as { charge: { id: string } };
    chargeIds.push(body.charge.id);
  });
  // Bounded wait for the last deliveries of the window.
  const deadline = Date.now() + 30_000;
  // Only this round's charges (earlier rounds' deliveries are in state.received too).
  const ours = new Set(chargeIds);
  const receivedNow = () => [...state.received.values()].filter((r) => ours.has(r.chargeId));
  while (receivedNow().length < chargeIds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const windowSeconds = (Math.max(windowStart, ...receivedNow().map((r) => r.at)) - windowStart) / 1000;

  const committed = new Map<string, number>(
    (await env.db('charges').whereIn('id', chargeIds).select('id', 'updated_at')).map((r: { id: string; updated_at: Date }) => [r.id, r.updated_at.getTime()]),
  );
  const samples = receivedNow().filter((r) => committed.has(r.chargeId)).map((r) => r.at - committed.get(r.chargeId)!);
  return { samples, seconds: windowSeconds, failures: chargeIds.length - samples.length };
}
