import { randomBytes } from 'node:crypto';
import { measureAtEachConnectionCount } from '../support/load';
import { defineScenario } from '../support/scenario';

/**
 * POST /api/v1/customers with a unique email and phone number per request: validation, API-key
 * authentication (two indexed lookups), one INSERT ... RETURNING under three unique indexes.
 * A duplicate would answer 422 and show up in the Non-2xx column. Floor: Express + zod + one
 * pg INSERT … RETURNING of the same row, without authentication.
 */
export default defineScenario({
  name: 'customers-create',
  description: 'POST /api/v1/customers, unique email + phone per request (201 expected)',
  async setup() {
    return { run: randomBytes(4).toString('hex'), counter: 0 };
  },
  async run(env, state) {
    // Floor and service insert under different merchants, so one counter keeps both unique.
    const next = () => {
      const n = state.counter++;
      return {
        body: {
          email: `bench.${state.run}.${n}@example.com`,
          first_name: 'Ada',
          last_name: 'Lovelace',
          // 10 digits, unique within this merchant for the first 7 billion requests.
          phone_number: String(2_000_000_000 + n),
        },
      };
    };
    return measureAtEachConnectionCount(
      env,
      { scenario: 'customers-create', method: 'POST', path: '/api/v1/customers', token: env.merchant.api_key, next },
      // Express + zod (the same schema) + one INSERT … RETURNING, no authentication.
      { scenario: 'customers-create floor', method: 'POST', path: '/customers', baseUrl: env.floorUrl, next },
    );
  },
});
