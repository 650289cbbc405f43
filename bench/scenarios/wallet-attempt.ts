import type { BenchEnvironment } from '../support/environment';
import { fromSamples, runClosedLoop } from '../support/samples';
import { defineScenario, type Measurement } from '../support/scenario';

const DECLINED_CARD = { type: 'credit_card', card: { number: '4000000000000002', exp_month: 12, exp_year: 2040, cvc: '123' } };

interface Checkout {
  id: string;
  client_secret: string;
}

/**
 * POST /wallet/v1/checkouts/{id}/attempts: client-secret auth, validation, tokenization, then a
 * Temporal update to the checkout workflow, which runs the attempt's activities (charge insert,
 * processor call, the state-table move with its outbox event) and answers 201 {charge}. Each
 * concurrent customer owns one checkout and pays with a declined card, so the checkout stays
 * open and every attempt runs the whole path (a success path differs only by completing it).
 */
export default defineScenario({
  name: 'wallet-attempt',
  startsWorkflows: true,
  description: 'POST /wallet/v1/checkouts/{id}/attempts, one Temporal update and charge per attempt (declined card, 201 expected)',
  async setup(env) {
    const customer = await env.request<{ id: string }>('POST', '/api/v1/customers', {
      token: env.merchant.api_key,
      body: { email: `bench.wallet.${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    const checkouts: Checkout[] = [];
    for (let i = 0; i < Math.max(...env.settings.connections); i++) {
      const res = await env.request<Checkout>('POST', '/api/v1/checkouts', { token: env.merchant.api_key, body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: 1000 } });
      if (res.status !== 201) throw new Error(`checkout create failed: ${res.status}`);
      checkouts.push(res.body);
    }
    return { checkouts };
  },
  async run(env, state) {
    const rows: Measurement[] = [];
    await measure(env, state.checkouts, Math.min(...env.settings.connections), env.settings.warmup);
    for (const connections of env.settings.connections) rows.push(await measure(env, state.checkouts, connections, env.settings.duration));
    return rows;
  },
});

async function measure(env: BenchEnvironment, checkouts: Checkout[], connections: number, seconds: number): Promise<Measurement> {
  const samples: number[] = [];
  let failures = 0;
  await runClosedLoop(connections, seconds * 1000, async (worker) => {
    const checkout = checkouts[worker]!;
    const started = performance.now();
    const res = await fetch(`${env.baseUrl}/wallet/v1/checkouts/${checkout.id}/attempts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-secret': checkout.client_secret },
      body: JSON.stringify({ payment_method: DECLINED_CARD }),
    });
    const body = (await res.json()) as { charge?: { status: string } };
    if (res.status === 201 && body.charge?.status === 'failed') samples.push(performance.now() - started);
    else failures++;
  });
  return fromSamples('wallet-attempt', connections, seconds, samples, failures, 'a request is one attempt (charge) through the checkout workflow');
}
