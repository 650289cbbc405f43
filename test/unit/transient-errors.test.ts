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

/** Every gRPC status code by name (the index is the code). */
const NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];
/** Written out rather than read from the module, so a change to its list fails here. */
const TRANSIENT = ['DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'UNAVAILABLE'];
const RETRIED_BY_UPDATES_ONLY = ['CANCELLED'];
const CODES = NAMES.map((name, code) => ({
  code,
  name,
  transient: TRANSIENT.includes(name),
  retriedByUpdates: TRANSIENT.includes(name) || RETRIED_BY_UPDATES_ONLY.includes(name),
}));

describe('gRPC status codes', () => {
  it.each(CODES)('$name ($code): transient $transient, retried by updates $retriedByUpdates', ({ code, transient, retriedByUpdates }) => {
    for (const error of [grpcError(code), new ServiceError('Workflow Update failed', { cause: grpcError(code) }), new Error('outer', { cause: new ServiceError('x', { cause: grpcError(code) }) })]) {
      expect(grpcCodeOf(error)).toBe(code);
      expect(isTransientTemporalFailure(error)).toBe(transient);
      expect(isRetryableUpdateFailure(error)).toBe(retriedByUpdates);
    }
  });

  it('the module list is exactly the codes written out as transient here', () => {
    expect([...TRANSIENT_GRPC_CODES].sort((a, b) => a - b)).toEqual(CODES.filter((c) => c.transient).map((c) => c.code));
  });

  it('the update paths retry exactly the transient codes plus one extra case, a cancelled update call', () => {
    const retried = CODES.filter((c) => isRetryableUpdateFailure(grpcError(c.code))).map((c) => c.name);
    expect(retried.sort()).toEqual([...TRANSIENT, ...RETRIED_BY_UPDATES_ONLY].sort());
  });
});

describe('a cancelled call', () => {
  it('is transient when the server or the connection cancelled it (the stream reset), not when we did', () => {
    const byServer = new ServiceError('Failed to start Workflow', { cause: grpcError(1, 'Call cancelled') });
    expect(isTransientTemporalFailure(byServer)).toBe(true);
    expect(isRetryableUpdateFailure(byServer)).toBe(true);
    const byUs = new ServiceError('Failed to start Workflow', { cause: grpcError(1, 'Cancelled on client') });
    expect(isTransientTemporalFailure(byUs)).toBe(false);
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
