import type { BenchEnvironment } from '../support/environment';
import { alternateWithFloor, type Run } from '../support/floors';
import { runClosedLoop } from '../support/samples';
import { defineScenario, type Measurement } from '../support/scenario';

const DECLINED_CARD = { type: 'credit_card', card: { number: '4000000000000002', exp_month: 12, exp_year: 2040, cvc: '123' } };

interface Checkout {
  id: string;
  client_secret: string;
  /** Attempts it has taken so far (every round and the warm-up included). */
  attempts?: number;
}

/** A floor workflow, and the updates it has answered so far (every round and the warm-up included). */
interface FloorWorkflow {
  id: string;
  attempts: number;
}

/**
 * A connection moves to a fresh checkout, and on the floor side to a fresh floor workflow, both
 * created outside the timed request, after this many attempts: both take attempts without limit,
 * but measured this way every round of either side sees the same mix of short histories. (A
 * checkout's long history continues as new; the floor's workflow never does, so a floor workflow
 * kept for a whole run grew a history of thousands of events, and the floor slowed down the
 * longer the run: a 40 s run measured it at 119 req/s at c=10, against 165 to 193 in 10 s runs.)
 */
const ATTEMPTS_PER_CHECKOUT = 40;

/**
 * POST /wallet/v1/checkouts/{id}/attempts: client-secret auth, validation, tokenization, then a
 * Temporal update to the checkout workflow, which runs the attempt's activities (charge insert,
 * processor call, the state-table move with its outbox event) and answers 201 {charge}. Each
 * concurrent customer owns one checkout and pays with a declined card, so the checkout stays
 * open and every attempt runs the whole path (a success path differs only by completing it).
 * Floor: one update to an open workflow whose handler runs one local activity doing one INSERT;
 * measured alone (c=1) and at each connection count, each connection on a workflow of its own.
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
    const floorWorkflows: FloorWorkflow[] = [];
    const newCheckout = async (): Promise<Checkout> => {
      const res = await env.request<Checkout>('POST', '/api/v1/checkouts', { token: env.merchant.api_key, body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: 1000 } });
      if (res.status !== 201) throw new Error(`checkout create failed: ${res.status}`);
      return { id: res.body.id, client_secret: res.body.client_secret, attempts: 0 };
    };
    const newFloorWorkflow = async (): Promise<FloorWorkflow> => {
      const res = await fetch(`${env.floorUrl}/checkouts`, { method: 'POST' });
      if (res.status !== 201) throw new Error(`floor workflow start failed: ${res.status}`);
      return { id: ((await res.json()) as { id: string }).id, attempts: 0 };
    };
    for (let i = 0; i < Math.max(...env.settings.connections); i++) {
      checkouts.push(await newCheckout());
      floorWorkflows.push(await newFloorWorkflow());
    }
    return { checkouts, floorWorkflows, newCheckout, newFloorWorkflow };
  },
  async run(env, state) {
    const rows: Measurement[] = [];
    const warm = Math.min(...env.settings.connections);
    await measure(env, state.checkouts, state.newCheckout, warm, env.settings.warmup);
    await measureFloor(env, state.floorWorkflows, state.newFloorWorkflow, warm, env.settings.warmup);
    for (const connections of [1, ...env.settings.connections.filter((c) => c !== 1)]) {
      rows.push(
        await alternateWithFloor(env, {
          scenario: 'wallet-attempt',
          connections,
          note: 'a request is one attempt (charge) through the checkout workflow; floor: one update + one local activity + one INSERT',
          service: (seconds) => measure(env, state.checkouts, state.newCheckout, connections, seconds),
          floor: (seconds) => measureFloor(env, state.floorWorkflows, state.newFloorWorkflow, connections, seconds),
        }),
      );
    }
    return rows;
  },
});

async function measureFloor(env: BenchEnvironment, workflows: FloorWorkflow[], newFloorWorkflow: () => Promise<FloorWorkflow>, connections: number, seconds: number): Promise<Run> {
  const samples: number[] = [];
  let failures = 0;
  await runClosedLoop(connections, seconds * 1000, async (worker) => {
    if (workflows[worker]!.attempts >= ATTEMPTS_PER_CHECKOUT) workflows[worker] = await newFloorWorkflow();
    const workflow = workflows[worker]!;
    workflow.attempts += 1;
    const started = performance.now();
    const res = await fetch(`${env.floorUrl}/attempts/${workflow.id}`, { method: 'POST' });
    await res.arrayBuffer();
    if (res.status === 201) samples.push(performance.now() - started);
    else failures++;
  });
  return { samples, seconds, failures };
}

async function measure(env: BenchEnvironment, checkouts: Checkout[], newCheckout: () => Promise<Checkout>, connections: number, seconds: number): Promise<Run> {
  const samples: number[] = [];
  let failures = 0;
  await runClosedLoop(connections, seconds * 1000, async (worker) => {
    if ((checkouts[worker]!.attempts ?? 0) >= ATTEMPTS_PER_CHECKOUT) checkouts[worker] = await newCheckout();
    const checkout = checkouts[worker]!;
    checkout.attempts = (checkout.attempts ?? 0) + 1;
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
  return { samples, seconds, failures };
}
