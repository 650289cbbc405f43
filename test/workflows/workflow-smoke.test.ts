import { waitFor } from '../support/fixtures';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { startService, type Service } from '../support/harness';
import { request } from '../support/http';
import { executeWorkflow } from '../../src/temporal/workflows';
import { WORKFLOWS } from '../../workflows/contract';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.stop());

describe('Temporal smoke', () => {
  it('runs a workflow on the real Temporal server whose activity reaches the real database', async () => {
    const result = await executeWorkflow(service.deps.temporal, WORKFLOWS.workerHealth, {
      taskQueue: service.taskQueue,
      workflowId: `health-${randomUUID()}`,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    expect(result).toEqual({ database: 'ok' });
  });

  it('has the search attributes the checkout workflows use registered', async () => {
    const response = await service.deps.temporal.connection.operatorService.listSearchAttributes({
      namespace: service.deps.config.temporalNamespace,
    });
    const custom = Object.keys(response.customAttributes ?? {});
    expect(custom).toEqual(expect.arrayContaining(['MerchantId', 'CustomerId', 'CheckoutType']));
  });

  it('reports database and Temporal as ready, without authentication', async () => {
    const health = await request(service.baseUrl, 'GET', '/healthz');
    expect(health.status).toBe(200);
    // The worker's polls show up on both task queues shortly after it starts.
    const ready = await waitFor(async () => {
      const res = await request(service.baseUrl, 'GET', '/readyz');
      return res.status === 200 && res.body.checks.background_worker === 'ok' && res;
    });
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok', worker: 'ok', background_worker: 'ok' } });
  });
});
