import { randomBytes } from 'node:crypto';
import { alternateWithFloor } from '../support/floors';
import { measureAtEachConnectionCount, runLoad, type LoadOptions } from '../support/load';
import { defineScenario } from '../support/scenario';

/**
 * POST /api/v1/customers with a unique email and phone number per request: validation, API-key
 * authentication (two indexed lookups), one INSERT ... RETURNING under three unique indexes.
 * A duplicate would answer 422 and show up in the Non-2xx column. Floor: Express + zod + one
 * pg INSERT … RETURNING of the same row, without authentication; a second set of rows against the
 * same floor checking the API key inside its INSERT; and a row at a fixed 500 requests a second,
 * whose latency (not its rate) is what it measures.
 */
const FIXED_RATE = 500;
const FIXED_RATE_CONNECTIONS = 10;

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
    const service: LoadOptions = { scenario: 'customers-create', method: 'POST', path: '/api/v1/customers', token: env.merchant.api_key, next };
    // Express + zod (the same schema) + one INSERT … RETURNING, no authentication.
    const bare: LoadOptions = { scenario: 'customers-create floor', method: 'POST', path: '/customers', baseUrl: env.floorUrl, next };
    const authenticated: LoadOptions = { ...bare, path: '/authenticated-customers', token: env.merchant.api_key };
    const rows = await measureAtEachConnectionCount(env, service, bare);
    rows.push(...(await measureAtEachConnectionCount(env, { ...service, scenario: 'customers-create vs a floor with authentication' }, authenticated)));
    const fixed = { ...service, scenario: `customers-create at ${FIXED_RATE}/s`, rate: FIXED_RATE };
    rows.push(
      await alternateWithFloor(env, {
        scenario: fixed.scenario,
        connections: FIXED_RATE_CONNECTIONS,
        service: (seconds) => runLoad(env, fixed, FIXED_RATE_CONNECTIONS, seconds),
        floor: (seconds) => runLoad(env, { ...bare, rate: FIXED_RATE }, FIXED_RATE_CONNECTIONS, seconds),
      }),
    );
    return rows;
  },
});
