/**
 * The error handler answers a dependency that is down for a moment (Temporal unreachable, the
 * database refusing connections) with 503 and Retry-After in the contract's shape, never a 500.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '@temporalio/client';
import { errorHandler } from '../../src/http/error-handler';
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
