import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcServiceError, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ServiceUnavailableError } from '../http/errors';

/**
 * gRPC codes of a refusal that passes. FAILED_PRECONDITION is the server's WorkflowNotReady
 * ("Workflow Task in failed state": the workflow's task timed out or failed and is being retried,
 * which happens under load and when a cluster moves a shard); the others are a busy or
 * unreachable server, or our deadline.
 */
const GRPC = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14 } as const;
const TRANSIENT_CODES: ReadonlySet<number> = new Set(Object.values(GRPC));

/** True when Temporal refused or lost a call for a reason that passes, so the same call may be sent again. */
export function isTransientTemporalError(error: unknown): boolean {
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(grpc) && TRANSIENT_CODES.has(grpc.code);
}

export interface UpdateRetry {
  attempts: number;
  /** First pause; doubles after each refusal. */
  delayMs: number;
}

/** About 3 s in all: long enough for a retried workflow task, short enough for a person waiting. */
export const UPDATE_RETRY: UpdateRetry = { attempts: 5, delayMs: 200 };

/**
 * Executes an update, retrying transient refusals under the same update id: the server answers a
 * repeated id with the update it already has (accepted or completed), so a retry never runs the
 * handler twice. After the last attempt the caller gets ServiceUnavailableError (a 503 with
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
      if (!isTransientTemporalError(error)) throw error;
      if (attempt >= retry.attempts) {
        throw new ServiceUnavailableError('The payment service is briefly unavailable.', 'Nothing was lost: send the same request again after Retry-After seconds.', 1);
      }
      await new Promise((resolve) => setTimeout(resolve, retry.delayMs * 2 ** (attempt - 1)));
    }
  }
}
