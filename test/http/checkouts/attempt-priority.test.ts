// A customer's attempt goes ahead of background work: with a backlog of expiries queued (the
// worker stopped), the attempt's workflow task runs before most of them once the worker is back.
// The expiries wait on the background task queue, the attempt on the task queue; where one queue
// carries both, task-queue priority puts the attempt first (without it the server hands tasks out
// first in, first out, and the attempt would wait for every one).
import { temporal } from '@temporalio/proto';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, openShop } from '../../support/fixtures';
import { startCheckoutWorkflow } from '../../../src/temporal/checkouts';
import { checkoutExpiryWorkflowId } from '../../../workflows/contract';

const EventType = temporal.api.enums.v1.EventType;
const BACKLOG = 200;

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

async function firstTaskStartedAt(workflowId: string): Promise<number> {
  const events = (await service.deps.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const task = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)!;
  return Number(task.eventTime!.seconds) * 1000 + Math.round((task.eventTime!.nanos ?? 0) / 1e6);
}

it('an attempt queued behind a backlog of expiries runs ahead of most of them', async () => {
  const shop = await openShop(service, { checkout_expiry_seconds: 600 });
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1_000 });
  await service.stopWorker();
  const backlog = Array.from({ length: BACKLOG }, (_, i) => `chk_backlog_${Date.now()}_${i}`);
  let answer: ReturnType<typeof attempt> | undefined;
  try {
    // Due already, of the same merchant (so fairness between merchants plays no part): queued at once.
    const past = new Date(Date.now() - 1_000).toISOString();
    for (const id of backlog) {
      await startCheckoutWorkflow(service.deps.temporal, service.deps.config, { checkoutId: id, merchantId: shop.merchant.id, customerId: shop.customerId, type: 'deposit', expiresAt: past });
    }
    answer = attempt(service, checkout, { payment_method: CARD() });
    await new Promise((r) => setTimeout(r, 1_000)); // the attempt's task is queued last
  } finally {
    await service.startWorker();
  }
  expect((await answer!).status).toBe(201);
  for (const id of backlog) await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(id)).result();

  const attemptTask = await firstTaskStartedAt(checkout.id);
  const backlogTasks = await Promise.all(backlog.map((id) => firstTaskStartedAt(checkoutExpiryWorkflowId(id))));
  const ahead = backlogTasks.filter((at) => at < attemptTask).length;
  expect(ahead).toBeLessThan(BACKLOG / 4);
}, 60_000);
