import { measureAtEachConnectionCount } from '../support/load';
import { defineScenario } from '../support/scenario';
import { DELAYED_START } from '../support/temporal';
import { deadlineWorkflowId } from '../../src/temporal/checkouts';

/**
 * POST /api/v1/checkouts for a preset deposit: validation, API-key authentication, the start of
 * the checkout's Temporal workflow (a round trip to the Temporal server, which persists it) and
 * the checkout INSERT, which also checks the customer. The workflow starts delayed until
 * its deadline (src/temporal/checkouts.ts), so no task of it runs here; with
 * CHECKOUT_WORKFLOW_DELAYED_START=false the worker runs its first task (its expiry timer) after
 * the answer, inside the round. 201 expected. Two floors: Express + one workflow.start of a
 * workflow whose first task starts a timer (the undelayed start's), and Express + one bare
 * workflow.start of a workflow no worker runs (the start alone: the floor).
 */
export default defineScenario({
  name: 'checkouts-create',
  startsWorkflows: true,
  description: 'POST /api/v1/checkouts (preset deposit), including the checkout workflow start (201 expected)',
  async setup(env) {
    const customer = await env.request<{ id: string }>('POST', '/api/v1/customers', {
      token: env.merchant.api_key,
      body: { email: `bench.checkouts.${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    if (customer.status !== 201) throw new Error(`customer create failed: ${customer.status}`);
    return { customerId: customer.body.id };
  },
  async run(env, state) {
    const service = {
      scenario: 'checkouts-create',
      method: 'POST',
      path: '/api/v1/checkouts',
      token: env.merchant.api_key,
      next: () => ({ body: { customer_id: state.customerId, type: 'deposit', fixed_amount_cents: 2500 } }),
      startsWorkflows: true,
      // The workflow a checkout's creation starts keeps its deadline: its expiry workflow, or its own when not delayed.
      workflowIdOf: (id: string) => deadlineWorkflowId(id, DELAYED_START),
    } as const;
    return [
      // Express + one workflow.start of a workflow whose first task starts a 30-minute timer, run
      // by a worker: what an undelayed checkout start adds to the start. Both sides' rounds end once
      // their workflows' first tasks have run (a delayed checkout start has none to wait for).
      ...(await measureAtEachConnectionCount(env, service, {
        scenario: 'checkouts-create floor',
        method: 'POST',
        path: '/expiring-workflows',
        baseUrl: env.floorUrl,
        next: () => ({ body: {} }),
        startsWorkflows: true,
      })),
      // Express + one bare workflow.start of a workflow no worker runs, on the same Temporal: the
      // start alone, the floor. A steady row (BENCH_STEADY_ROUNDS): its 0.9× target lies
      // within the spread of a 2-round row.
      ...(await measureAtEachConnectionCount(env, { ...service, scenario: 'checkouts-create vs bare start', steady: true }, {
        scenario: 'checkouts-create bare-start floor',
        method: 'POST',
        path: '/workflows',
        baseUrl: env.floorUrl,
        next: () => ({ body: {} }),
      })),
    ];
  },
});
