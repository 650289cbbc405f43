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
export function executeUpdateRetrying<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  def: UpdateDefinition<Ret, Args>,
  options: { args: Args; updateId: string },
  retry: UpdateRetry = UPDATE_RETRY,
): Promise<Ret> {
  return sendUpdateRetrying(() => handle.executeUpdate(def, options), retry);
}

/**
 * The same retries for any way of sending one update under one update id (`send`): an update
 * sent with the start of its workflow (update-with-start) among them.
 */
export async function sendUpdateRetrying<Ret>(send: () => Promise<Ret>, retry: UpdateRetry = UPDATE_RETRY): Promise<Ret> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isRetryableUpdateFailure(error)) throw error;
      if (attempt >= retry.attempts) {
        throw new ServiceUnavailableError('The payment service is briefly unavailable.', 'Nothing was lost: send the same request again after Retry-After seconds.', 1);
      }
      await new Promise((resolve) => setTimeout(resolve, retry.delayMs * 2 ** (attempt - 1)));
    }
  }
}

/** How long a request waits for its workflow to catch up with a commit that came before it, and how often it asks again. */
export const CATCH_UP = { forMs: 5_000, pauseMs: 25 } as const;

/**
 * Sends an update (`send`, e.g. an executeUpdateRetrying call) again while the workflow refuses it
 * only because it has not yet caught up with a commit that came before the request (`behind` says
 * which refusals those are): every CATCH_UP.pauseMs for up to CATCH_UP.forMs. After that, or on any
 * other outcome, it answers or throws as the last send did.
 */
export async function sendOnceCaughtUp<T>(send: () => Promise<T>, behind: (error: unknown) => boolean | Promise<boolean>): Promise<T> {
  const until = Date.now() + CATCH_UP.forMs;
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (Date.now() >= until || !(await behind(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP.pauseMs));
    }
  }
}
