// A deploy of the next workflow version while checkouts run: the versioning rule, tested.
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';
import type { WebhookReceiver } from '../support/receiver';
import { attempt, BANK, CARD, createCheckout, openShop } from '../support/fixtures';
import { request } from '../support/http';
import { createWorker } from '../../src/worker';
import { startTracing, workerTracingOptions } from '../../src/observability/tracing';
import { checkoutWorkflowId } from '../../workflows/contract';
import { NEW_FIRST_STEP_PATCH } from '../fixtures/next-version/patched';

/** The baseline's own patch (workflows/checkout.ts END_EXPIRY_WORKFLOW_PATCH): a checkout's end ends its expiry workflow. */
const BASELINE_END_PATCH = 'end-expiry-workflow';

const HISTORIES = path.join(__dirname, 'histories');
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'next-version');
const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

/**
 * The next version is a checkout with one new step in its first workflow task (see
 * test/fixtures/next-version): behind patched(), as the rule asks, and without it, as it forbids.
 */
describe('a deploy of the next workflow version', () => {
  let service: Service;
  let receiver: WebhookReceiver;
  useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { replicas: 1 } });

  const dir = mkdtempSync(path.join(os.tmpdir(), 'payments-next-version-'));
  const bundles = { patched: path.join(dir, 'patched.js'), unpatched: path.join(dir, 'unpatched.js') };
  beforeAll(async () => {
    for (const [name, out] of Object.entries(bundles)) {
      const { code } = await bundleWorkflowCode({ workflowsPath: path.join(FIXTURES, `${name}.ts`), logger: quietLogger });
      writeFileSync(out, code);
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The service's worker replaced by one running `bundle`, as a rolling deploy does; `body` runs while it polls. */
  async function onNextVersion(bundle: string, body: () => Promise<void>): Promise<void> {
    await service.stopWorker();
    const { worker, connection } = await createWorker({ deps: service.deps, taskQueue: service.taskQueue, workflowBundlePath: bundle, maxCachedWorkflows: 0 });
    try {
      await worker.runUntil(body);
    } finally {
      await connection.close();
      await service.startWorker();
    }
  }

  const history = async (checkoutId: string) => (await service.deps.temporal.workflow.getHandle(checkoutWorkflowId(checkoutId)).fetchHistory()).events ?? [];
  type Events = Awaited<ReturnType<typeof history>>;
  /** The patch ids a history's patch markers carry. */
  const patchIds = (events: Events) =>
    events
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
      .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]!.data!).toString()).id);
  const newSteps = (events: Events) => events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkDatabase').length;

  it('finishes a checkout that the baseline started and left waiting, and takes the new step only in new checkouts', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 1 }, sandbox_settlement_seconds: 1 });
    const waiting = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const reviewed = await attempt(service, waiting, { payment_method: BANK() });
    expect(reviewed.body.review.status).toBe('pending');

    let fresh = waiting;
    await onNextVersion(bundles.patched, async () => {
      const approved = await request(service.baseUrl, 'POST', `/admin/v1/reviews/${reviewed.body.review.id}/approve`, { token: service.adminToken });
      expect(approved.status).toBe(200);
      expect(await service.deps.temporal.workflow.getHandle(checkoutWorkflowId(waiting.id)).result()).toEqual({ state: 'completed' });

      fresh = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
      expect((await attempt(service, fresh, { payment_method: CARD() })).status).toBe(201);
      expect(await service.deps.temporal.workflow.getHandle(checkoutWorkflowId(fresh.id)).result()).toEqual({ state: 'completed' });
    });

    // Replayed on the next version, the waiting checkout kept the baseline's path: no step, no new
    // marker (only the baseline's own, when it ends its expiry workflow), no failed task.
    const before = await history(waiting.id);
    expect(before.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect([patchIds(before), newSteps(before)]).toEqual([[BASELINE_END_PATCH], 0]);
    const [charge] = await service.deps.db('charges').where({ checkout_id: waiting.id });
    expect(charge.status).toBe('succeeded');
    // A checkout started on the next version takes the new step, and its history says so.
    const after = await history(fresh.id);
    expect([patchIds(after), newSteps(after)]).toEqual([[NEW_FIRST_STEP_PATCH, BASELINE_END_PATCH], 1]);
  }, 90_000);

  it('replays every baseline history with the patched next version, and fails without its patched()', async () => {
    const { sinks } = workerTracingOptions(startTracing({ serviceName: 'replay', otlpEndpoint: null }));
    const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));
    const load = (file: string) => historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
    for (const file of files) await Worker.runReplayHistory({ workflowBundle: { codePath: bundles.patched }, sinks }, load(file), file);
    const checkout = files.find((f) => f.startsWith('checkoutWorkflow--'))!;
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: bundles.unpatched }, sinks }, load(checkout), checkout)).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 60_000);
});
