import { startService, type Service } from '../support/harness';
import { request } from '../support/http';
import { WebhookReceiver } from '../support/receiver';
import { WorkerProcess } from '../support/worker-process';
import { attempt, CARD, createCheckout, openShop, recordedEvents, waitFor, type CreatedCheckout, type Shop } from '../support/fixtures';
import { checkoutExpiryWorkflowId, deliveryWorkflowId } from '../../workflows/contract';

/**
 * The split layout `npm start` runs: an interactive worker (the task queue: attempts) and a
 * background worker (the background task queue: expiries, their webhooks, and the sweeps), each a
 * process of its own. Expiries run on the background worker alone, attempts on the interactive one
 * alone, so one can stop without stopping the other. The expiry sweeps wait ten minutes past a
 * deadline here (the last test's backstop excepted): every other checkout below is expired by its
 * expiry workflow.
 */
let service: Service;
let receiver: WebhookReceiver;
let interactive: WorkerProcess;
let background: WorkerProcess;
/** Checkouts expire a few seconds after their creation; `payer`'s are paid long before theirs. */
let expiring: Shop;
let payer: Shop;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  service = await startService({ worker: false, replicas: 1, env: { EXPIRY_SWEEP_GRACE_MS: '600000', EXPIRY_BACKSTOP_GRACE_MS: '600000' } });
  interactive = new WorkerProcess(service, { WORKER_ROLE: 'interactive' });
  background = new WorkerProcess(service, { WORKER_ROLE: 'background' });
  await Promise.all([interactive.start(), background.start()]);
  expiring = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 3, enabled_events: ['checkout.expired'] });
  payer = await openShop(service, { webhook_url: receiver.url });
}, 400_000);

afterAll(async () => {
  await Promise.all([interactive?.stop(), background?.stop()]);
  await service?.stop();
  await receiver?.stop();
});

const readyz = () => request(service.baseUrl, 'GET', '/readyz');

async function expectPaid(checkout: CreatedCheckout): Promise<void> {
  const res = await attempt(service, checkout, { payment_method: CARD() });
  expect([res.status, res.body.charge?.status]).toEqual([201, 'succeeded']);
}

async function stateOf(checkoutId: string): Promise<string> {
  return (await service.deps.db('checkouts').where({ id: checkoutId }).first('state')).state;
}

it('expires a checkout by its expiry workflow on the background task queue, delivers checkout.expired from there, and pays attempts on the interactive worker', async () => {
  const ready = await waitFor(async () => {
    const res = await readyz();
    return res.status === 200 && res.body.checks.background_worker === 'ok' && res;
  }, 30_000, 'both workers to be ready');
  expect(ready.body.checks).toEqual({ database: 'ok', temporal: 'ok', worker: 'ok', background_worker: 'ok' });

  // The first delivery attempt (made by the process that expired the checkout) is refused: the
  // retries run in a delivery workflow, on the background task queue too.
  let refused = false;
  receiver.responder = (r) => {
    const first = !refused && r.body?.type === 'checkout.expired';
    if (first) refused = true;
    return { status: first ? 503 : 200 };
  };
  const abandoned = await createCheckout(service, expiring, { type: 'deposit', fixed_amount_cents: 1_000 });
  await expectPaid(await createCheckout(service, payer, { type: 'deposit', fixed_amount_cents: 1_000 }));

  const expiry = service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(abandoned.id));
  await expect(expiry.result()).resolves.toEqual({ expired: true });
  expect((await expiry.describe()).taskQueue).toBe(service.backgroundTaskQueue);
  expect(await stateOf(abandoned.id)).toBe('expired');

  await waitFor(() => receiver.forCheckout(abandoned.id).filter((r) => r.body?.type === 'checkout.expired').length >= 2, 30_000, 'checkout.expired to be delivered on a retry');
  const event = (await recordedEvents(service, abandoned.id)).find((e) => e.type === 'checkout.expired')!;
  const delivery = service.deps.temporal.workflow.getHandle(deliveryWorkflowId(event.id));
  await expect(delivery.result()).resolves.toBe('delivered');
  expect((await delivery.describe()).taskQueue).toBe(service.backgroundTaskQueue);
  receiver.responder = () => ({ status: 200 });
}, 120_000);

it('pays attempts while the background worker is down, and expires what fell due once it is back', async () => {
  await background.kill();
  let back = false;
  try {
    // Readiness follows the interactive worker: the API stays in rotation, and names what is missing.
    const res = await waitFor(async () => {
      const answer = await readyz();
      return answer.body.checks?.background_worker === 'no_pollers' && answer;
    }, 30_000, 'readiness to see the background worker gone');
    expect([res.status, res.body.checks]).toEqual([200, { database: 'ok', temporal: 'ok', worker: 'ok', background_worker: 'no_pollers' }]);

    const abandoned = await createCheckout(service, expiring, { type: 'deposit', fixed_amount_cents: 1_000 });
    for (let i = 0; i < 3; i++) await expectPaid(await createCheckout(service, payer, { type: 'deposit', fixed_amount_cents: 1_000 }));
    // Past its deadline, with nobody to run its expiry workflow: still open.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await stateOf(abandoned.id)).toBe('open');

    await background.start();
    back = true;
    await expect(service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(abandoned.id)).result()).resolves.toEqual({ expired: true });
    expect(await stateOf(abandoned.id)).toBe('expired');
    await waitFor(() => receiver.forCheckout(abandoned.id).some((r) => r.body?.type === 'checkout.expired'), 30_000, 'checkout.expired to be delivered');
    await waitFor(async () => (await readyz()).body.checks?.background_worker === 'ok', 30_000, 'readiness to see the background worker back');
  } finally {
    if (!back) await background.start();
  }
}, 400_000);

it('with the background worker away, the interactive worker expires a checkout once it is EXPIRY_BACKSTOP_GRACE_MS late, once, and tells the merchant', async () => {
  await background.kill();
  await interactive.stop();
  interactive = new WorkerProcess(service, { WORKER_ROLE: 'interactive', EXPIRY_BACKSTOP_GRACE_MS: '1500' });
  await interactive.start();
  let abandoned: CreatedCheckout;
  try {
    abandoned = await createCheckout(service, expiring, { type: 'deposit', fixed_amount_cents: 1_000 });
    await expectPaid(await createCheckout(service, payer, { type: 'deposit', fixed_amount_cents: 1_000 }));
    await waitFor(async () => (await stateOf(abandoned.id)) === 'expired', 20_000, 'the backstop sweep to expire the checkout');
    const row = await service.deps.db('checkouts').where({ id: abandoned.id }).first('expires_at', 'updated_at');
    // Not before its grace: the background worker had that long to expire it by its timer.
    expect(row.updated_at.getTime() - row.expires_at.getTime()).toBeGreaterThanOrEqual(1_500);
    await waitFor(() => receiver.forCheckout(abandoned.id).some((r) => r.body?.type === 'checkout.expired'), 30_000, 'checkout.expired to be delivered');
  } finally {
    await background.start();
  }
  // The expiry workflow, run once the background worker is back, finds nothing left to expire.
  await expect(service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(abandoned.id)).result()).resolves.toEqual({ expired: false });
  expect((await recordedEvents(service, abandoned.id)).filter((e) => e.type === 'checkout.expired')).toHaveLength(1);
  expect(receiver.forCheckout(abandoned.id).filter((r) => r.body?.type === 'checkout.expired')).toHaveLength(1);
}, 400_000);
