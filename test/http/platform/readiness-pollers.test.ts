import { temporal as proto } from '@temporalio/proto';
import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { waitFor } from '../../support/fixtures';
import { createWorker } from '../../../src/worker';
import { startHeartbeat } from '../../../src/health/heartbeat';

/**
 * /readyz counts a task queue as served only when Temporal lists its workers polling it for
 * activity tasks as well as for workflow tasks: a payment needs both (a withdrawal's hold and a
 * charge's settlement are activities). After an outage a worker's two kinds of polls come back
 * each on its own retry; here a worker registered without activities polls workflow tasks alone.
 */
let service: Service;

beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

const readyz = () => request(service.baseUrl, 'GET', '/readyz');

const pollersOf = async (taskQueueType: proto.api.enums.v1.TaskQueueType) =>
  (await service.deps.temporal.workflowService.describeTaskQueue({ namespace: service.deps.config.temporalNamespace, taskQueue: { name: service.taskQueue }, taskQueueType })).pollers?.length ?? 0;

it('is not ready while the task queue has workflow pollers but no activity pollers, and ready once a worker polls both', async () => {
  const { worker, connection } = await createWorker({ deps: service.deps, workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH, activities: {}, maxCachedWorkflows: 0 });
  const stopHeartbeat = startHeartbeat(service.deps, [service.taskQueue]);
  const running = worker.run();
  try {
    await waitFor(async () => (await pollersOf(proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)) > 0, 30_000, 'the workflow pollers to be listed');
    expect(await pollersOf(proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)).toBe(0);
    const res = await readyz();
    expect([res.status, res.body.checks]).toEqual([503, { database: 'ok', temporal: 'ok', worker: 'no_pollers', background_worker: 'no_pollers' }]);
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await stopHeartbeat();
  }

  await service.startWorker();
  const ready = await waitFor(async () => {
    const res = await readyz();
    return res.status === 200 && res;
  }, 30_000, '/readyz to answer 200 with a whole worker');
  expect(ready.body.checks.worker).toBe('ok');
}, 90_000);
