import { WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcServiceError } from '@temporalio/client';

/**
 * The one decision of whether a Temporal call failed for a reason that passes. The HTTP error
 * handler answers such a failure 503 with Retry-After; the update paths (src/temporal/updates.ts,
 * subscription updates) send the same update again under the same update id first.
 */
const GRPC = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14 } as const;

/**
 * gRPC codes of a Temporal refusal that passes: our deadline, a busy server, an unreachable one;
 * FAILED_PRECONDITION is the server's WorkflowNotReady ("Workflow Task in failed state": the
 * workflow's task timed out or failed and is being retried, under load or while a cluster moves a
 * shard); ABORTED is an update the server dropped (its registry cleared, the run continuing as
 * new) and retries itself until its own retries run out.
 */
export const TRANSIENT_GRPC_CODES: ReadonlySet<number> = new Set([GRPC.DEADLINE_EXCEEDED, GRPC.RESOURCE_EXHAUSTED, GRPC.FAILED_PRECONDITION, GRPC.ABORTED, GRPC.UNAVAILABLE]);

/** How deep a cause chain is searched (ServiceError and WorkflowUpdateRPCTimeoutOrCancelledError wrap the gRPC error one level down). */
const MAX_CAUSE_DEPTH = 6;

/** The first gRPC service error (the SDK's own test) in the error's cause chain. */
function grpcErrorOf(error: unknown): { code: number; details?: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth += 1) {
    if (isGrpcServiceError(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The status code of the first gRPC service error (the SDK's own test) in the error's cause chain. */
export function grpcCodeOf(error: unknown): number | undefined {
  return grpcErrorOf(error)?.code;
}

/**
 * The details gRPC gives a CANCELLED that the server or the connection caused (the stream reset
 * with CANCEL: a Temporal server going down or starting up), never our own cancel ('Cancelled on client').
 */
const CANCELLED_BY_SERVER = 'Call cancelled';

/**
 * True when Temporal refused or lost a call for a reason that passes: a 503 with Retry-After, never
 * a 500. A CANCELLED counts only when the server or the connection cancelled the call.
 */
export function isTransientTemporalFailure(error: unknown): boolean {
  const grpc = grpcErrorOf(error);
  if (grpc === undefined) return false;
  return TRANSIENT_GRPC_CODES.has(grpc.code) || (grpc.code === GRPC.CANCELLED && grpc.details === CANCELLED_BY_SERVER);
}

/**
 * The one case the update paths retry beyond TRANSIENT_GRPC_CODES: an update call that came back
 * CANCELLED. We never cancel an update call ourselves, so there it is the server or the connection
 * dropping the call and resending under the same update id is safe; anywhere else a CANCELLED may
 * be the caller's own cancel, which is not a dependency that is down, so it is not answered 503.
 */
export function isCancelledUpdateCall(error: unknown): boolean {
  return error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || grpcCodeOf(error) === GRPC.CANCELLED;
}

/** True when an update may be sent again under the same update id (the server answers a repeated id with the update it has). */
export function isRetryableUpdateFailure(error: unknown): boolean {
  return isTransientTemporalFailure(error) || isCancelledUpdateCall(error);
}
