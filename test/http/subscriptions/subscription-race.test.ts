import { startService, type Service } from '../../support/harness';
import { openShop, waitFor } from '../../support/fixtures';
import { HOUR, plus, subscriptionHelpers } from '../../support/subscriptions';
import { subscriptionViolations } from '../../support/subscription-invariants';

let service: Service;
beforeAll(async () => {
  // A slow sandbox processor keeps a renewal in flight long enough to race a cancellation.
  service = await startService({ env: { SANDBOX_LATENCY_MS: '1000' } });
});
afterEach(async () => {
  expect(await subscriptionViolations(service.deps.db)).toEqual([]);
});
afterAll(async () => service.stop());

const { admin, setClock, subscribe, read, advance, until } = subscriptionHelpers(() => service);
const charges = (id: string) => service.deps.db('charges').where({ subscription_id: id }).orderBy('created_at');

describe('a cancellation racing a renewal', () => {
  it('waits for the renewal in flight, and nothing is charged after the cancellation', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-10-01T00:00:00Z');
    const { id } = await subscribe(shop);
    const due = (await read(id)).current_period_end as string;
    await advance(id, { to: plus(due, HOUR) });
    await waitFor(async () => (await charges(id)).some((c) => c.subscription_period === 1), 20_000, 'the renewal at the processor');

    const cancelled = await admin('POST', `/subscriptions/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    // The renewal that was in flight finished first (paid, period advanced), then the cancellation ran.
    const [first, renewal, ...more] = await charges(id);
    expect(first.subscription_period).toBe(0);
    expect(renewal).toMatchObject({ subscription_period: 1, status: 'succeeded' });
    expect(more).toEqual([]);
    expect(Date.parse(cancelled.body.cancelled_at)).toBeGreaterThan(Date.parse(due));
    expect(cancelled.body.current_period_start).toBe(due);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await charges(id)).toHaveLength(2);
  }, 60_000);

  it('a cancellation sent with the clock advance: at most the one renewal already due, never one after', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-11-01T00:00:00Z');
    const { id } = await subscribe(shop, { interval: 'day' });
    // Ten daily renewals fall due at once; the cancellation arrives while they are being worked off.
    const [advanced, cancelled] = await Promise.all([
      advance(id, { seconds: 10 * 86400 + 3600 }),
      new Promise((r) => setTimeout(r, 300)).then(() => admin('POST', `/subscriptions/${id}/cancel`, {})),
    ]);
    expect(advanced.status).toBe(200);
    expect(cancelled.status).toBe(200);
    const atCancel = await charges(id);
    expect(atCancel.length).toBeLessThan(11);
    const sub = await until(id, (s) => s.status === 'cancelled', 'cancelled');
    expect(atCancel.every((c) => c.status === 'succeeded')).toBe(true);
    expect(sub.charges).toHaveLength(atCancel.length);
    await waitFor(async () => (await service.deps.temporal.workflow.getHandle(id).describe()).status.name === 'COMPLETED', 15_000, 'the workflow to end');
    expect(await charges(id)).toHaveLength(atCancel.length);
  }, 60_000);

  it('updates sent while the workflow continues as new every period all land (test clock advances answer 200)', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-12-01T00:00:00Z');
    const { id } = await subscribe(shop, { interval: 'day' });
    expect((await advance(id, { seconds: 6 * 86400 + 60 })).status).toBe(200);
    // Each small advance races the runs that are charging and continuing as new meanwhile.
    for (let i = 0; i < 12; i++) {
      const res = await advance(id, { seconds: 1 });
      expect(res.status).toBe(200);
    }
    const sub = await until(id, (s) => s.charges.length === 7 && s.charges.every((c: { status: string }) => c.status === 'succeeded'), 'six daily renewals');
    expect(sub.current_period_end).toMatch(/^2027-12-08T00:0/);
  }, 90_000);
});
