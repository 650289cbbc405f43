/**
 * A database connection lost under a query is a transient failure (503 with Retry-After), never
 * a 500: the real node-postgres driver is cut off mid-query by a proxy that drops both sockets.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import knex from 'knex';
import { Client } from 'pg';
import { isTransientDependencyFailure } from '../../src/http/errors';

const ADMIN_URL = new URL(process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

/** A TCP proxy to the real PostgreSQL whose open connections can be cut at once. */
async function cuttableProxy(): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(ADMIN_URL.port || 5432), ADMIN_URL.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a database connection lost under a query', () => {
  it('is recognised as transient, as the driver raises it', async () => {
    const proxy = await cuttableProxy();
    const client = new Client({ host: '127.0.0.1', port: proxy.port, user: ADMIN_URL.username || 'postgres', database: ADMIN_URL.pathname.slice(1) || 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const query = client.query('SELECT pg_sleep(5)');
      setTimeout(() => proxy.cut(), 200);
      const error = await query.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as { code?: unknown }).code).toBeUndefined();
      expect(isTransientDependencyFailure(error)).toBe(true);
      // The next query on the dead client fails the same way.
      const next = await client.query('SELECT 1').then(() => null, (e: unknown) => e);
      expect(isTransientDependencyFailure(next)).toBe(true);
    } finally {
      await client.end().catch(() => undefined);
      await proxy.close();
    }
  });

  it('is recognised as transient through knex, which prefixes the SQL to the message', async () => {
    const proxy = await cuttableProxy();
    const db = knex({ client: 'pg', connection: { host: '127.0.0.1', port: proxy.port, user: ADMIN_URL.username || 'postgres', database: ADMIN_URL.pathname.slice(1) || 'postgres' }, pool: { min: 0, max: 1 } });
    try {
      // Connected first (the pool keeps its one connection), so the cut always finds the query on the wire.
      await db.raw('SELECT 1');
      const query = db.raw('SELECT pg_sleep(5)');
      setTimeout(() => proxy.cut(), 200);
      const error = await query.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/^SELECT pg_sleep\(5\) - Connection terminated/);
      expect(isTransientDependencyFailure(error)).toBe(true);
    } finally {
      await db.destroy().catch(() => undefined);
      await proxy.close();
    }
  });

  it('is told apart from an error that merely mentions a connection', () => {
    expect(isTransientDependencyFailure(new Error('Connection terminated unexpectedly, said the merchant'))).toBe(false);
    expect(isTransientDependencyFailure(Object.assign(new Error('Connection terminated unexpectedly'), { code: '23505' }))).toBe(false);
    expect(isTransientDependencyFailure(new Error('Connection terminated unexpectedly - select 1'))).toBe(false);
  });
});
