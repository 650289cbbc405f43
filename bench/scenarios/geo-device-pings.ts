import { newId } from '../../src/domain/ids';
import type { BenchEnvironment } from '../support/environment';
import { measureLoad, warmUp, type LoadOptions } from '../support/load';
import { defineScenario, type Measurement } from '../support/scenario';
import { seededRandom } from '../support/random';

const SEED = Number(process.env.BENCH_GEO_CUSTOMERS ?? 100_000);
const BATCH = 1_000;
/** Continental United States: most points fall in a state, some in Canada, Mexico or the sea. */
const BOX = { lat0: 25, lat1: 49, lon0: -124, lon1: -67 };


const geoChecks = async (env: BenchEnvironment, merchantId: string): Promise<number> =>
  Number((await env.db('geo_checks').where({ merchant_id: merchantId }).count({ n: '*' }))[0]!.n);

/**
 * POST /api/v1/device_pings with client-secret auth, each request for a customer without a
 * recent geo check, so each one runs the whole evaluation: customer lookup, the 30-minute
 * window query, offline reverse geocoding and two inserts in one transaction. Customers are
 * bulk-inserted outside the measurement; if a run outlasts them, later pings reuse a check
 * and the row's note says how many were evaluated.
 */
export default defineScenario({
  name: 'geo-device-pings',
  description: `POST /api/v1/device_pings, a fresh geo check per request (random points over the continental US; ${SEED} seeded customers)`,
  async setup(env) {
    if (!Number.isInteger(SEED) || SEED < 1) throw new Error('BENCH_GEO_CUSTOMERS must be a positive integer');
    const merchant = await env.onboard('Bench geo merchant');
    const customerIds: string[] = [];
    for (let start = 0; start < SEED; start += BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(start + BATCH, SEED); i++) {
        const id = newId('customer');
        customerIds.push(id);
        rows.push({ id, merchant_id: merchant.id, email: `bench.geo.${i}@example.com`, first_name: 'Grace', last_name: 'Hopper' });
      }
      await env.db('customers').insert(rows);
    }
    await env.db.raw('ANALYZE customers');
    // One checked ping before measuring, so a broken endpoint cannot pass as fast.
    const probe = await env.request<{ geo_check: { region: string } | null }>('POST', '/api/v1/device_pings', {
      token: merchant.client_secret,
      body: { latitude: 40.7128, longitude: -74.006, customer_id: customerIds.pop() },
    });
    if (probe.status !== 201 || probe.body.geo_check?.region !== 'NY') throw new Error(`device ping probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
    return { merchant, customerIds, next: 0, random: seededRandom(42) };
  },
  async run(env, state) {
    const options: LoadOptions = {
      scenario: 'geo-device-pings',
      method: 'POST',
      path: '/api/v1/device_pings',
      token: state.merchant.client_secret,
      next: () => {
        const customer_id = state.customerIds[state.next++ % state.customerIds.length];
        const latitude = BOX.lat0 + state.random() * (BOX.lat1 - BOX.lat0);
        const longitude = BOX.lon0 + state.random() * (BOX.lon1 - BOX.lon0);
        return { body: { latitude, longitude, customer_id } };
      },
    };
    await warmUp(env, options);
    const rows: Measurement[] = [];
    for (const connections of env.settings.connections) {
      const before = await geoChecks(env, state.merchant.id);
      const row = await measureLoad(env, options, connections);
      const evaluated = (await geoChecks(env, state.merchant.id)) - before;
      // Open-sea points create no check, so "evaluated" counts only points on land.
      rows.push({ ...row, note: `${evaluated} of ${row.requests} pings created a geo check (the rest: open sea, or a reused check once the seed ran out)` });
    }
    return rows;
  },
});
