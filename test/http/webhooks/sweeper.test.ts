// The outbox sweeper against the real database and a stand-in Temporal client whose starts are slow.
import { startService, type Service } from '../../support/harness';
import { openShop } from '../../support/fixtures';
import { recordEvent } from '../../../src/events/record';
import { startOutboxSweeper } from '../../../src/events/sweeper';
import * as eventsStorage from '../../../src/storage/events';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

describe('outbox sweeper', () => {
  it('dispatches a backlog in parallel, each event once, and never queues a sweep behind a running one', async () => {
    const shop = await openShop(service, { webhook_url: 'http://127.0.0.1:9/webhooks' });
    const merchant = { id: shop.merchant.id, settings: (await service.deps.db('merchants').where({ id: shop.merchant.id }).first()).settings };
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) ids.push((await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { i }, {})).id);
    // Old enough for the sweeper's grace period.
    await service.deps.db('events').whereIn('id', ids).update({ created_at: service.deps.db.raw("now() - interval '1 minute'") });

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const temporal = {
      workflow: {
        start: async (_type: string, options: { workflowId: string }) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await released;
          started.push(options.workflowId);
          inFlight -= 1;
        },
      },
    };
    const finds = jest.spyOn(eventsStorage, 'claimUndispatched');
    const stop = startOutboxSweeper({ ...service.deps, temporal: temporal as never }, 20);
    try {
      await new Promise((r) => setTimeout(r, 500)); // 25 intervals while the first sweep is blocked
      expect(finds).toHaveBeenCalledTimes(1);
      expect(maxInFlight).toBeGreaterThan(1);
      release();
      await new Promise((r) => setTimeout(r, 60));
      // Without skipping, the 25 ticks queued behind the blocked sweep would all run now.
      expect(finds.mock.calls.length).toBeLessThanOrEqual(6);
    } finally {
      await stop();
      finds.mockRestore();
    }
    const ours = started.filter((id) => ids.includes(id));
    expect(ours.sort()).toEqual([...ids].sort());
    const rows = await service.deps.db('events').whereIn('id', ids).whereNull('dispatched_at');
    expect(rows).toHaveLength(0);
  });
});
