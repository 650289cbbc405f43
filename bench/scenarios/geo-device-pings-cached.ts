import { measureAtEachConnectionCount } from '../support/load';
import { defineScenario } from '../support/scenario';

/**
 * POST /api/v1/device_pings for one customer whose geo check is recent, so every request takes
 * the 30-minute reuse path: customer lookup, the window query and one insert (no geocoding).
 * Compare with geo-device-pings for what the evaluation itself costs.
 */
export default defineScenario({
  name: 'geo-device-pings-cached',
  description: 'POST /api/v1/device_pings for a customer with a recent geo check (cached: true on every request)',
  async setup(env) {
    const merchant = await env.onboard('Bench geo cached merchant');
    const customer = await env.request<{ id: string }>('POST', '/api/v1/customers', {
      token: merchant.api_key,
      body: { email: `bench.geo.cached.${Date.now()}@example.com`, first_name: 'Grace', last_name: 'Hopper' },
    });
    if (customer.status !== 201) throw new Error(`customer create failed: ${customer.status}`);
    const body = { latitude: 40.7128, longitude: -74.006, customer_id: customer.body.id };
    const first = await env.request('POST', '/api/v1/device_pings', { token: merchant.client_secret, body });
    const second = await env.request<{ geo_check: { cached: boolean } | null }>('POST', '/api/v1/device_pings', { token: merchant.client_secret, body });
    if (first.status !== 201 || second.body.geo_check?.cached !== true) throw new Error(`cached probe failed: ${second.status} ${JSON.stringify(second.body)}`);
    return { clientSecret: merchant.client_secret, body };
  },
  async run(env, state) {
    return measureAtEachConnectionCount(env, {
      scenario: 'geo-device-pings-cached',
      method: 'POST',
      path: '/api/v1/device_pings',
      token: state.clientSecret,
      next: () => ({ body: state.body }),
    });
  },
});
