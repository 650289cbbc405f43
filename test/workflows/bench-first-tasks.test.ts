// The benchmark's wait for the first tasks a load round's starts leave to a worker
// (bench/support/temporal.ts, waitForFirstTasks), against the real Temporal of the test run: it
// still waits for a workflow whose first task has not run, and pays one describe, not one per
// workflow, for a round of delayed starts (a checkout's), which have no first task to wait for.
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { waitForFirstTasks } from '../../bench/support/temporal';
import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

/** The service's client, counting the workflows it is asked to describe. */
function countingClient(): { client: Client; described: string[] } {
  const real = service.deps.temporal;
  const described: string[] = [];
  const workflow = {
    getHandle: (workflowId: string) => {
      const handle = real.workflow.getHandle(workflowId);
      return { describe: () => (described.push(workflowId), handle.describe()) };
    },
  };
  return { client: { workflow } as unknown as Client, described };
}

/** Workflows no worker polls for (their task queue is nobody's), delayed or not. */
async function startUnpolled(count: number, startDelay?: Duration): Promise<string[]> {
  const taskQueue = `unpolled-${randomBytes(4).toString('hex')}`;
  const ids = Array.from({ length: count }, () => `bench-first-task-${randomBytes(6).toString('hex')}`);
  started.push(...ids);
  for (const workflowId of ids) await service.deps.temporal.workflow.start('benchFloorNoop', { taskQueue, workflowId, ...(startDelay ? { startDelay } : {}) });
  return ids;
}

const started: string[] = [];
// Leave nothing running in the run's Temporal.
afterAll(() => Promise.all(started.map((id) => service.deps.temporal.workflow.getHandle(id).terminate().catch(() => undefined))));

describe('waitForFirstTasks', () => {
  it('describes only the newest of a round of delayed starts, and waits for nothing', async () => {
    const ids = await startUnpolled(5, '1 hour');
    const { client, described } = countingClient();
    const waited = await waitForFirstTasks(client, ids, 2_000);
    expect(described).toEqual([ids[4]]);
    expect(waited).toBeLessThan(1);
  });

  it('still waits for a workflow whose first task has not run (here never: no worker polls its queue)', async () => {
    const ids = await startUnpolled(2);
    const { client, described } = countingClient();
    await expect(waitForFirstTasks(client, ids, 500)).rejects.toThrow(`workflow ${ids[0]} had not run its first task`);
    // The newest first (not delayed), then the oldest, again and again until the deadline.
    expect(described[0]).toBe(ids[1]);
    expect(described.slice(1).every((id) => id === ids[0])).toBe(true);
    expect(described.length).toBeGreaterThanOrEqual(3);
  });
});
