import { newId } from '../../src/domain/ids';
import { measureAtEachConnectionCount } from '../support/load';
import { defineScenario } from '../support/scenario';

const SEED = Number(process.env.BENCH_SEED_CUSTOMERS ?? 10_000);
const BATCH = 1_000;
const email = (i: number) => `bench.search.${i}@example.com`;

/**
 * GET /api/v1/customers/search?email=... for a random one of SEED customers (every query hits
 * exactly one): authentication plus one lookup on the (merchant_id, lower(email)) unique index.
 * The customers are bulk-inserted for a merchant of the scenario's own, outside the measurement.
 */
export default defineScenario({
  name: 'customers-search',
  description: `GET /api/v1/customers/search?email=<random one of ${SEED} seeded customers> (200, 1 result)`,
  async setup(env) {
    if (!Number.isInteger(SEED) || SEED < 1) throw new Error('BENCH_SEED_CUSTOMERS must be a positive integer');
    const merchant = await env.onboard('Bench search merchant');
    for (let start = 0; start < SEED; start += BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(start + BATCH, SEED); i++) {
        rows.push({
          id: newId('customer'),
          merchant_id: merchant.id,
          email: email(i),
          first_name: 'Grace',
          last_name: 'Hopper',
          phone_number: String(3_000_000_000 + i),
        });
      }
      await env.db('customers').insert(rows);
    }
    await env.db.raw('ANALYZE customers');
    // One checked query before measuring, so a broken search cannot pass as fast.
    const probe = await env.request<{ results: Array<{ email: string }> }>('GET', `/api/v1/customers/search?email=${encodeURIComponent(email(SEED - 1))}`, {
      token: merchant.api_key,
    });
    if (probe.status !== 200 || probe.body.results.length !== 1 || probe.body.results[0]!.email !== email(SEED - 1)) {
      throw new Error(`search probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
    }
    return { apiKey: merchant.api_key };
  },
  async run(env, state) {
    return measureAtEachConnectionCount(env, {
      scenario: 'customers-search',
      method: 'GET',
      path: `/api/v1/customers/search?email=${encodeURIComponent(email(0))}`,
      token: state.apiKey,
      next: () => ({ path: `/api/v1/customers/search?email=${encodeURIComponent(email(Math.floor(Math.random() * SEED)))}` }),
    });
  },
});
