import type { WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ServiceUnavailableError } from '../http/errors';
import { isRetryableUpdateFailure } from './transient-errors';

export interface UpdateRetry {
  attempts: number;
  /** First pause; doubles after each refusal. */
  delayMs: number;
}

/** About 3 s in all: long enough for a retried workflow task, short enough for a person waiting. */
export const UPDATE_RETRY: UpdateRetry = { attempts: 5, delayMs: 200 };

/**
 * Executes an update, retrying transient refusals (isRetryableUpdateFailure) under the same
 * update id: the server answers a repeated id with the update it already has (accepted or
 * completed), so a retry never runs the handler twice. After the last attempt the caller gets ServiceUnavailableError (a 503 with
 * Retry-After); any other error is rethrown as it came.
 */
export async function executeUpdateRetrying<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  def: UpdateDefinition<Ret, Args>,
  options: { args: Args; updateId: string },
  retry: UpdateRetry = UPDATE_RETRY,
): Promise<Ret> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.executeUpdate(def, options);
    } catch (error) {
      if (!isRetryableUpdateFailure(error)) throw error;
      if (attempt >= retry.attempts) {
        throw new ServiceUnavailableError('The payment service is briefly unavailable.', 'Nothing was lost: send the same request again after Retry-After seconds.', 1);
      }
      await new Promise((resolve) => setTimeout(resolve, retry.delayMs * 2 ** (attempt - 1)));
    }
  }
}
