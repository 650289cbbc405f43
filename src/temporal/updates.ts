import { WorkflowUpdateStage, type WorkflowHandle, type WorkflowUpdateHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { awaitingOutcome, timeLeftFor, unreachable } from './deadlines';
import { isRetryableUpdateFailure } from './transient-errors';

export interface UpdateRetry {
  attempts: number;
  /** First pause; doubles after each refusal. */
  delayMs: number;
}

/** About 3 s in all: long enough for a retried workflow task, short enough for a person waiting. */
export const UPDATE_RETRY: UpdateRetry = { attempts: 5, delayMs: 200 };

/**
 * Executes an update in two steps: sent until the workflow accepts it, within the request's reach
 * of Temporal (src/temporal/deadlines.ts), then its outcome awaited. Transient refusals
 * (isRetryableUpdateFailure) are sent again under the same update id: the server answers a
 * repeated id with the update it already has (accepted or completed), so a retry never runs the
 * handler twice. Any other error is rethrown as it came.
 */
export function executeUpdateRetrying<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  def: UpdateDefinition<Ret, Args>,
  options: { args: Args; updateId: string },
  retry: UpdateRetry = UPDATE_RETRY,
): Promise<Ret> {
  return outcomeOfAccepted(handle.client, () => handle.startUpdate(def, { ...options, waitForStage: WorkflowUpdateStage.ACCEPTED }), retry);
}

/** Sends an update until it is accepted (`accept`, within the reach), then waits for its outcome (at most TEMPORAL_OUTCOME_MS). */
export async function outcomeOfAccepted<Ret>(client: WorkflowHandle['client'], accept: () => Promise<WorkflowUpdateHandle<Ret>>, retry: UpdateRetry = UPDATE_RETRY): Promise<Ret> {
  const accepted = await sendUpdateRetrying(accept, retry);
  return awaitingOutcome(client, () => sendUpdateRetrying(() => accepted.result(), retry));
}

/**
 * The same retries for any way of sending one update under one update id (`send`): an update
 * sent with the start of its workflow (update-with-start) among them. After the last attempt, or
 * when the next pause would pass the request's reach of Temporal, the caller gets a 503 with
 * Retry-After (`unreachable`).
 */
export async function sendUpdateRetrying<Ret>(send: () => Promise<Ret>, retry: UpdateRetry = UPDATE_RETRY): Promise<Ret> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isRetryableUpdateFailure(error)) throw error;
      const pause = retry.delayMs * 2 ** (attempt - 1);
      if (attempt >= retry.attempts || !timeLeftFor(pause)) throw unreachable();
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** How long a request waits for its workflow to catch up with a commit that came before it, and how often it asks again. */
export const CATCH_UP = { forMs: 5_000, pauseMs: 25 } as const;

/**
 * Sends an update (`send`, e.g. an executeUpdateRetrying call) again while the workflow refuses it
 * only because it has not yet caught up with a commit that came before the request (`behind` says
 * which refusals those are): every CATCH_UP.pauseMs for up to CATCH_UP.forMs (and within the
 * request's reach of Temporal). After that, or on any
 * other outcome, it answers or throws as the last send did.
 */
export async function sendOnceCaughtUp<T>(send: () => Promise<T>, behind: (error: unknown) => boolean | Promise<boolean>): Promise<T> {
  const until = Date.now() + CATCH_UP.forMs;
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (Date.now() >= until || !timeLeftFor(CATCH_UP.pauseMs) || !(await behind(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP.pauseMs));
    }
  }
}
