import { measureAtEachConnectionCount } from '../support/load';
import { defineScenario } from '../support/scenario';

/**
 * POST /api/v1/checkouts for a preset deposit: validation, API-key authentication, the
 * customer lookup, the start of the checkout's Temporal workflow (a round trip to the
 * Temporal server, which persists it) and the checkout INSERT. 201 expected. Floor: Express +
 * one bare workflow.start.
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
    return measureAtEachConnectionCount(
      env,
      {
        scenario: 'checkouts-create',
        method: 'POST',
        path: '/api/v1/checkouts',
        token: env.merchant.api_key,
        next: () => ({ body: { customer_id: state.customerId, type: 'deposit', fixed_amount_cents: 2500 } }),
      },
      // Express + one bare workflow.start of a workflow no worker runs, on the same Temporal.
      { scenario: 'checkouts-create floor', method: 'POST', path: '/workflows', baseUrl: env.floorUrl, next: () => ({ body: {} }) },
    );
  },
});
