/**
 * The error handler answers a dependency that is down for a moment (Temporal unreachable, the
 * database refusing connections) with 503 and Retry-After in the contract's shape, never a 500.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { ServiceError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { errorHandler } from '../../src/http/error-handler';
import { ServiceUnavailableError } from '../../src/http/errors';
import { accessLog } from '../../src/http/request-context';
import { createLogger } from '../../src/logger';

function grpcError(code: number): Error {
  return Object.assign(new Error(`${code} grpc failure`), { code, details: 'No connection established', metadata: {} });
}

async function answer(error: unknown): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const logger = createLogger('silent');
  const app = express();
  app.use(accessLog(logger));
  app.get('/boom', () => {
    throw error;
  });
  app.use(errorHandler(logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  } finally {
    server.close();
  }
}

describe('dependency failures', () => {
  it('Temporal unreachable (a ServiceError caused by gRPC UNAVAILABLE) is 503 with Retry-After', async () => {
    const res = await answer(new ServiceError('Failed to start Workflow', { cause: grpcError(14) }));
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('1');
    expect(res.body).toEqual({ error: 'The service is briefly unavailable.', hint: expect.any(String), request_id: expect.any(String) });
  });

  it('a Temporal deadline or exhausted resource is 503 too', async () => {
    expect((await answer(new ServiceError('Workflow Update failed', { cause: grpcError(4) }))).status).toBe(503);
    expect((await answer(new ServiceError('Workflow Update failed', { cause: grpcError(8) }))).status).toBe(503);
  });

  it('the database refusing connections or the pool timing out is 503', async () => {
    expect((await answer(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).status).toBe(503);
    expect((await answer(Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }))).status).toBe(503);
  });

  it('a Temporal failure that is not transient, and any other error, stay a 500 with no details', async () => {
    const notFound = await answer(new ServiceError('Workflow not found', { cause: grpcError(5) }));
    expect(notFound.status).toBe(500);
    expect(notFound.retryAfter).toBeNull();
    const plain = await answer(new Error('SELECT secret FROM somewhere'));
    expect(plain.status).toBe(500);
    expect(JSON.stringify(plain.body)).not.toContain('SELECT');
  });
});

describe('the mapping of every gRPC status code of a Temporal call', () => {
  // Written out rather than taken from TRANSIENT_GRPC_CODES, so a change to the list or to the
  // handler's use of it fails here: unavailable, deadline exceeded, resource exhausted, and the
  // update refusals the update paths retry (a workflow task in failed state, an aborted update).
  const UNAVAILABLE_CODES = [4, 8, 9, 10, 14];

  it.each(Array.from({ length: 17 }, (_, code) => code))('code %i', async (code) => {
    const res = await answer(new ServiceError('Workflow Update failed', { cause: grpcError(code) }));
    if (UNAVAILABLE_CODES.includes(code)) {
      expect(res.status).toBe(503);
      expect(res.retryAfter).toBe('1');
      expect(res.body).toEqual({ error: 'The service is briefly unavailable.', hint: expect.any(String), request_id: expect.any(String) });
    } else {
      expect(res.status).toBe(500);
      expect(res.retryAfter).toBeNull();
      expect(res.body).toEqual({ error: 'Internal server error.', hint: expect.any(String), request_id: expect.any(String) });
    }
  });

  it('a workflow task in failed state (WorkflowNotReady) met outside the update paths is 503', async () => {
    const notReady = grpcError(9);
    notReady.message = '9 FAILED_PRECONDITION: Unable to perform workflow execution update due to Workflow Task in failed state.';
    expect((await answer(new ServiceError('Workflow Query failed', { cause: notReady }))).status).toBe(503);
  });

  it("a cancelled call (the caller's own cancel) is not a 503", async () => {
    expect((await answer(new ServiceError('x', { cause: grpcError(1) }))).status).toBe(500);
    expect((await answer(new WorkflowUpdateRPCTimeoutOrCancelledError('cancelled', { cause: grpcError(1) }))).status).toBe(500);
  });

  it('an update call that timed out is 503', async () => {
    const res = await answer(new WorkflowUpdateRPCTimeoutOrCancelledError('timeout', { cause: grpcError(4) }));
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('1');
  });

  it('a refusal by the workflow that reached the handler unconverted is a 500, never a 503', async () => {
    const res = await answer(new WorkflowUpdateFailedError('refused', ApplicationFailure.nonRetryable('no', 'CHECKOUT_NOT_OPEN')));
    expect(res.status).toBe(500);
    expect(res.retryAfter).toBeNull();
  });

  it("the update paths' own 503 (retries spent) keeps its message, hint and Retry-After", async () => {
    const res = await answer(new ServiceUnavailableError('The payment service is briefly unavailable.', 'Send it again.', 1));
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('1');
    expect(res.body).toEqual({ error: 'The payment service is briefly unavailable.', hint: 'Send it again.', request_id: expect.any(String) });
  });
});
