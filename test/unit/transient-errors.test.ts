/**
 * One classification of Temporal failures for both callers: the HTTP error handler (503 or not)
 * and the update paths (send again under the same update id or not). Every gRPC status code is
 * classified here, raw, wrapped as the client wraps it (ServiceError), and deeper in a cause chain.
 */
import { ServiceError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import {
  TRANSIENT_GRPC_CODES,
  grpcCodeOf,
  isCancelledUpdateCall,
  isRetryableUpdateFailure,
  isTransientTemporalFailure,
} from '../../src/temporal/transient-errors';

/** A gRPC error as @grpc/grpc-js raises it (code, details, metadata). */
function grpcError(code: number, details = `status ${code}`): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

/** Every gRPC status code, with the classification each gets. */
const CODES: Array<{ code: number; name: string; transient: boolean; retriedByUpdates: boolean }> = [
  { code: 0, name: 'OK', transient: false, retriedByUpdates: false },
  { code: 1, name: 'CANCELLED', transient: false, retriedByUpdates: true },
  { code: 2, name: 'UNKNOWN', transient: false, retriedByUpdates: false },
  { code: 3, name: 'INVALID_ARGUMENT', transient: false, retriedByUpdates: false },
  { code: 4, name: 'DEADLINE_EXCEEDED', transient: true, retriedByUpdates: true },
  { code: 5, name: 'NOT_FOUND', transient: false, retriedByUpdates: false },
  { code: 6, name: 'ALREADY_EXISTS', transient: false, retriedByUpdates: false },
  { code: 7, name: 'PERMISSION_DENIED', transient: false, retriedByUpdates: false },
  { code: 8, name: 'RESOURCE_EXHAUSTED', transient: true, retriedByUpdates: true },
  { code: 9, name: 'FAILED_PRECONDITION', transient: true, retriedByUpdates: true },
  { code: 10, name: 'ABORTED', transient: true, retriedByUpdates: true },
  { code: 11, name: 'OUT_OF_RANGE', transient: false, retriedByUpdates: false },
  { code: 12, name: 'UNIMPLEMENTED', transient: false, retriedByUpdates: false },
  { code: 13, name: 'INTERNAL', transient: false, retriedByUpdates: false },
  { code: 14, name: 'UNAVAILABLE', transient: true, retriedByUpdates: true },
  { code: 15, name: 'DATA_LOSS', transient: false, retriedByUpdates: false },
  { code: 16, name: 'UNAUTHENTICATED', transient: false, retriedByUpdates: false },
];

describe('gRPC status codes', () => {
  it.each(CODES)('$name ($code): transient $transient, retried by updates $retriedByUpdates', ({ code, transient, retriedByUpdates }) => {
    for (const error of [grpcError(code), new ServiceError('Workflow Update failed', { cause: grpcError(code) }), new Error('outer', { cause: new ServiceError('x', { cause: grpcError(code) }) })]) {
      expect(grpcCodeOf(error)).toBe(code);
      expect(isTransientTemporalFailure(error)).toBe(transient);
      expect(isRetryableUpdateFailure(error)).toBe(retriedByUpdates);
    }
  });

  it('the transient list is exactly the codes marked transient above', () => {
    expect([...TRANSIENT_GRPC_CODES].sort((a, b) => a - b)).toEqual(CODES.filter((c) => c.transient).map((c) => c.code));
  });

  it('the update paths retry the transient codes plus one extra case, a cancelled update call', () => {
    const extra = CODES.filter((c) => c.retriedByUpdates && !c.transient).map((c) => c.name);
    expect(extra).toEqual(['CANCELLED']);
    expect(CODES.filter((c) => c.transient).every((c) => c.retriedByUpdates)).toBe(true);
  });
});

describe('errors of the update call', () => {
  it('an update call that timed out is transient everywhere; one that was cancelled is retried by updates only', () => {
    const timedOut = new WorkflowUpdateRPCTimeoutOrCancelledError('timeout', { cause: grpcError(4) });
    expect(isTransientTemporalFailure(timedOut)).toBe(true);
    expect(isRetryableUpdateFailure(timedOut)).toBe(true);
    for (const cancelled of [
      new WorkflowUpdateRPCTimeoutOrCancelledError('cancelled', { cause: grpcError(1) }),
      new WorkflowUpdateRPCTimeoutOrCancelledError('cancelled', { cause: new CancelledFailure('cancelled') }),
    ]) {
      expect(isCancelledUpdateCall(cancelled)).toBe(true);
      expect(isTransientTemporalFailure(cancelled)).toBe(false);
      expect(isRetryableUpdateFailure(cancelled)).toBe(true);
    }
  });

  it('a refusal by the workflow (a business rule) is never transient nor retried', () => {
    const refusal = new WorkflowUpdateFailedError('refused', ApplicationFailure.nonRetryable('no', 'CHECKOUT_NOT_OPEN'));
    expect(grpcCodeOf(refusal)).toBeUndefined();
    expect(isTransientTemporalFailure(refusal)).toBe(false);
    expect(isRetryableUpdateFailure(refusal)).toBe(false);
  });
});

describe('what is not a gRPC error', () => {
  it('plain errors, non-errors and lookalikes without the SDK shape (details and metadata) are not transient', () => {
    const lookalike = Object.assign(new Error('14 unavailable'), { code: 14 });
    for (const error of [new Error('boom'), 'UNAVAILABLE', 14, null, undefined, { code: 14 }, lookalike, Object.assign(new Error('db'), { code: 'ECONNREFUSED' })]) {
      expect(grpcCodeOf(error)).toBeUndefined();
      expect(isTransientTemporalFailure(error)).toBe(false);
      expect(isRetryableUpdateFailure(error)).toBe(false);
    }
  });
});
