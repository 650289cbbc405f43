import { WorkflowNotFoundError, WorkflowUpdateStage, type WorkflowHandle, type WorkflowUpdateHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ServiceUnavailableError } from '../http/errors';
import { awaitingOutcome, timeLeftFor, unreachable, withinReach } from './deadlines';
import { isRetryableUpdateFailure } from './transient-errors';

export interface UpdateRetry {
  attempts: number;
  /** First pause; doubles after each refusal. */
  delayMs: number;
}

/** About 3 s in all: long enough for a retried workflow task, short enough for a person waiting. */
export const UPDATE_RETRY: UpdateRetry = { attempts: 5, delayMs: 200 };

/**
 * Executes an update within the request's reach of Temporal (src/temporal/deadlines.ts): see
 * outcomeWithinReach. Transient refusals (isRetryableUpdateFailure) are sent again under the same
 * update id: the server answers a repeated id with the update it already has (accepted or
 * completed), so a retry never runs the handler twice. Any other error is rethrown as it came.
 */
export function executeUpdateRetrying<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  def: UpdateDefinition<Ret, Args>,
  options: { args: Args; updateId: string },
  retry: UpdateRetry = UPDATE_RETRY,
): Promise<Ret> {
  return outcomeWithinReach(handle.client, {
    complete: () => handle.executeUpdate(def, options),
    accept: () => handle.startUpdate(def, { ...options, waitForStage: WorkflowUpdateStage.ACCEPTED }),
  }, retry);
}

/** How long the one extra question takes at most: was the update accepted before the reach ended? */
const ACCEPTED_PROBE_MS = 1_000;

/**
 * One update, sent two ways under one update id: `complete` waits for its outcome (one call, the
 * usual case), `accept` only until the workflow accepted it. `complete` runs within the reach; if
 * the reach ends first, the update may be one the workflow accepted whose outcome takes longer (a
 * withdrawal's hold waits up to 10 s), so `accept` asks once, briefly: accepted, its outcome is
 * awaited (at most TEMPORAL_OUTCOME_MS); not, the answer is a 503, and the workflow refuses the
 * update should it arrive later (its acceptBy has passed).
 */
export async function outcomeWithinReach<Ret>(
  client: WorkflowHandle['client'],
  send: { complete: () => Promise<Ret>; accept: () => Promise<WorkflowUpdateHandle<Ret>> },
  retry: UpdateRetry = UPDATE_RETRY,
): Promise<Ret> {
  try {
    return await sendUpdateRetrying(send.complete, retry);
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) throw error;
  }
  let accepted: WorkflowUpdateHandle<Ret>;
  try {
    accepted = await withinReach(client, Date.now() + ACCEPTED_PROBE_MS, send.accept);
  } catch (error) {
    // Not accepted in time (or its workflow never started): nothing was done.
    if (isRetryableUpdateFailure(error) || error instanceof WorkflowNotFoundError) throw unreachable();
    throw error;
  }
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
