import { ServiceError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { ServiceUnavailableError } from '../../src/http/errors';
import { executeUpdateRetrying } from '../../src/temporal/updates';
import { isRetryableUpdateFailure } from '../../src/temporal/transient-errors';

/** A gRPC error as the client raises it (code, details, metadata). */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

const NOT_READY = () => new ServiceError('Workflow Update failed', { cause: grpcError(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.') });
const update = { type: 'update', name: 'anUpdate' } as UpdateDefinition<string, [string]>;

/**
 * A handle whose executeUpdate fails `times` times with `error`; its startUpdate (the one question
 * whether the update was accepted after all) answers `accepted`'s outcome, or fails the same way.
 */
function handleFailing(times: number, error: () => Error, accepted?: string): { handle: WorkflowHandle; calls: Array<{ updateId?: string }> } {
  const calls: Array<{ updateId?: string }> = [];
  const handle = {
    client: { withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn() },
    executeUpdate: async (_def: unknown, options: { updateId?: string }) => {
      calls.push(options);
      if (calls.length <= times) throw error();
      return 'done';
    },
    startUpdate: async (_def: unknown, options: { updateId?: string }) => {
      calls.push(options);
      if (accepted === undefined) throw error();
      return { result: async () => accepted };
    },
  } as unknown as WorkflowHandle;
  return { handle, calls };
}

describe('transient Temporal refusals of an update', () => {
  it('are a failing workflow task, a busy or unreachable server, or a timeout; never a refusal by the workflow', () => {
    expect(isRetryableUpdateFailure(NOT_READY())).toBe(true);
    expect(isRetryableUpdateFailure(new ServiceError('x', { cause: grpcError(14, 'unavailable') }))).toBe(true);
    expect(isRetryableUpdateFailure(new ServiceError('x', { cause: grpcError(3, 'invalid argument') }))).toBe(false);
    expect(isRetryableUpdateFailure(new WorkflowUpdateFailedError('refused', ApplicationFailure.nonRetryable('no', 'CHECKOUT_NOT_OPEN')))).toBe(false);
    expect(isRetryableUpdateFailure(new Error('boom'))).toBe(false);
  });

  it('are retried under the same update id until one is answered', async () => {
    const { handle, calls } = handleFailing(2, NOT_READY);
    await expect(executeUpdateRetrying(handle, update, { args: ['a'], updateId: 'att_1' }, { attempts: 5, delayMs: 1 })).resolves.toBe('done');
    expect(calls.map((c) => c.updateId)).toEqual(['att_1', 'att_1', 'att_1']);
  });

  it('become a 503 with Retry-After once the retries are spent; other errors pass unchanged', async () => {
    const spent = executeUpdateRetrying(handleFailing(99, NOT_READY).handle, update, { args: ['a'], updateId: 'att_2' }, { attempts: 3, delayMs: 1 });
    const error = await spent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).status).toBe(503);
    expect((error as ServiceUnavailableError).headers()).toEqual({ 'Retry-After': '1' });
    const refusal = new WorkflowUpdateFailedError('refused', ApplicationFailure.nonRetryable('no', 'CHECKOUT_NOT_OPEN'));
    const { handle, calls } = handleFailing(99, () => refusal);
    await expect(executeUpdateRetrying(handle, update, { args: ['a'], updateId: 'att_3' }, { attempts: 3, delayMs: 1 })).rejects.toBe(refusal);
    expect(calls).toHaveLength(1);
  });

  it('once the retries are spent, ask once whether the workflow accepted the update after all, and answer its outcome if so', async () => {
    const { handle, calls } = handleFailing(99, NOT_READY, 'done late');
    await expect(executeUpdateRetrying(handle, update, { args: ['a'], updateId: 'att_4' }, { attempts: 2, delayMs: 1 })).resolves.toBe('done late');
    expect(calls.map((c) => c.updateId)).toEqual(['att_4', 'att_4', 'att_4']);
  });
});
