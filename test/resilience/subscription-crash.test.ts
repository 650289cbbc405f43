import { startService, type Service } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { openShop, recordedEvents, waitFor } from '../support/fixtures';
import { HOUR, plus, subscriptionHelpers } from '../support/subscriptions';
import { subscriptionViolations } from '../support/subscription-invariants';

let service: Service;
let worker: WorkerProcess;
beforeAll(async () => {
  service = await startService({ worker: false });
  // A slow sandbox processor, so the kill lands while the renewal charge is at the processor.
  worker = new WorkerProcess(service, { SANDBOX_LATENCY_MS: '1500' });
  await worker.start();
});
afterEach(async () => {
  expect(await subscriptionViolations(service.deps.db)).toEqual([]);
});
afterAll(async () => {
  await worker.stop();
  await service.stop();
});

const { setClock, subscribe, read, advance, until } = subscriptionHelpers(() => service);

describe('a worker crash during a renewal', () => {
  it('SIGKILL while the renewal charge is at the processor: after restart exactly one charge for that period, paid once', async () => {
    const shop = await openShop(service);
    await setClock(shop, '2027-09-30T12:00:00Z');
    const { id, checkout } = await subscribe(shop);
    const due = (await read(id)).current_period_end as string;

    expect((await advance(id, { to: plus(due, HOUR) })).status).toBe(200);
    await waitFor(async () => (await service.deps.db('charges').where({ subscription_id: id, subscription_period: 1 })).length > 0, 20_000, 'the renewal charge row');
    await worker.kill();
    const [inFlight] = await service.deps.db('charges').where({ subscription_id: id, subscription_period: 1 });
    expect(inFlight.status).toBe('created');
    await worker.start();

    const sub = await until(id, (s) => s.charges.length === 2 && s.charges[1].status === 'succeeded', 'the renewal after restart', 90_000);
    expect(sub.current_period_start).toBe(due);
    const renewals = await service.deps.db('charges').where({ subscription_id: id, subscription_period: 1 });
    expect(renewals).toHaveLength(1);
    expect(renewals[0].id).toBe(inFlight.id);
    const succeeded = (await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.succeeded' && e.charge_id === inFlight.id);
    expect(succeeded).toHaveLength(1);
  }, 120_000);
});
