import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/app';
import { closeCredentialCache } from '../../../src/http/credential-cache';
import { createDb, type Db } from '../../../src/storage/db';
import { startService, type Service } from '../../support/harness';
import { request, type JsonResponse } from '../../support/http';

const MAX_FAILURES = 10;
const WINDOW_SECONDS = 3;
const WRONG = 'wrong-token-0123456789';

let service: Service;
/** A second API app with its own pool on the same database: what it knows in memory, the first does not. */
let other: { url: string; server: Server; db: Db };
beforeAll(async () => {
  service = await startService({
    worker: false,
    replicas: 1,
    env: { ADMIN_TOKEN_MAX_FAILURES: String(MAX_FAILURES), ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS) },
  });
  const db = createDb(service.deps.config.databaseUrl, { max: 2 });
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ ...service.deps, db }).listen(0, '127.0.0.1', () => resolve(s));
  });
  other = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, db };
});
afterAll(async () => {
  other.server.closeAllConnections();
  await new Promise<void>((resolve) => other.server.close(() => resolve()));
  await closeCredentialCache(other.db);
  await other.db.destroy();
  await service.stop();
});

/** A client address of its own per test (the app believes X-Forwarded-For from loopback). */
let lastAddress = 0;
const newAddress = () => `203.0.113.${++lastAddress}`;

const adminCall = (url: string, address: string, token: string) => request(url, 'GET', '/admin/v1/merchants', { token, headers: { 'x-forwarded-for': address } });

const wrongToken = { error: 'Admin token not valid.', hint: expect.any(String), request_id: expect.any(String) };
const throttled = { error: 'Too many wrong admin tokens from this address.', hint: expect.stringMatching(/^Try again in \d+ seconds\.$/), request_id: expect.any(String) };

function expectThrottled(res: JsonResponse): number {
  expect([res.status, res.body]).toEqual([429, throttled]);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  return retryAfter;
}

describe('wrong admin tokens are throttled per client address', () => {
  it(`answers 429 with Retry-After after ${MAX_FAILURES} wrong tokens, even with the right one; another address gets in`, async () => {
    const address = newAddress();
    for (let i = 1; i <= MAX_FAILURES; i += 1) {
      const res = await adminCall(service.ownUrl, address, WRONG);
      expect([i, res.status, res.body]).toEqual([i, 401, wrongToken]);
    }
    expectThrottled(await adminCall(service.ownUrl, address, WRONG));
    expectThrottled(await adminCall(service.ownUrl, address, service.adminToken));

    expect((await adminCall(service.ownUrl, newAddress(), service.adminToken)).status).toBe(200);
  });

  it('counts wrong tokens across API processes (PostgreSQL)', async () => {
    const address = newAddress();
    for (let i = 1; i <= MAX_FAILURES / 2; i += 1) expect((await adminCall(other.url, address, WRONG)).status).toBe(401);
    for (let i = 1; i <= MAX_FAILURES / 2; i += 1) expect((await adminCall(service.ownUrl, address, WRONG)).status).toBe(401);
    // The other app saw five failures only: a wrong token there is counted in the database, which knows of the block.
    expectThrottled(await adminCall(other.url, address, WRONG));
    // And the app that saw the block refuses the right token too.
    expectThrottled(await adminCall(service.ownUrl, address, service.adminToken));
  });

  it('judges a burst of concurrent wrong tokens as it judges them one after another: the limit, then refusals not even counted', async () => {
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: 3 * MAX_FAILURES }, () => adminCall(service.ownUrl, address, WRONG)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(2 * MAX_FAILURES).fill(429)]);
    // Refused while the first ones were still being counted, the others were never counted.
    const row = await service.deps.db('admin_token_failures').where({ client_address: address }).first('failures');
    expect(row).toEqual({ failures: MAX_FAILURES });
    expectThrottled(await adminCall(service.ownUrl, address, service.adminToken));
  });

  it('lets the address in again once the window has passed, and counts afresh', async () => {
    const address = newAddress();
    for (let i = 1; i <= MAX_FAILURES; i += 1) expect((await adminCall(service.ownUrl, address, WRONG)).status).toBe(401);
    const retryAfter = expectThrottled(await adminCall(service.ownUrl, address, service.adminToken));
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 250));
    expect((await adminCall(service.ownUrl, address, service.adminToken)).status).toBe(200);
    expect((await adminCall(other.url, address, WRONG)).status).toBe(401);
  });

  it('counts no request without a token and no successful one', async () => {
    const address = newAddress();
    for (let i = 1; i <= MAX_FAILURES + 5; i += 1) {
      expect((await request(service.ownUrl, 'GET', '/admin/v1/merchants', { headers: { 'x-forwarded-for': address } })).status).toBe(401);
      expect((await adminCall(service.ownUrl, address, service.adminToken)).status).toBe(200);
    }
    for (let i = 1; i < MAX_FAILURES; i += 1) expect((await adminCall(service.ownUrl, address, WRONG)).status).toBe(401);
    expect((await adminCall(service.ownUrl, address, service.adminToken)).status).toBe(200);
  });

  it('makes no database work for a right bearer token; a wrong one is one count (and the clean-up)', async () => {
    const address = newAddress();
    const queries: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (query.sql.includes('admin_token_failures')) queries.push(query.sql);
    };
    other.db.on('query', onQuery);
    try {
      for (let i = 0; i < 3; i += 1) expect((await adminCall(other.url, address, service.adminToken)).status).toBe(200);
      expect(queries).toEqual([]);
      expect((await adminCall(other.url, address, WRONG)).status).toBe(401);
      expect(queries).toEqual([expect.stringMatching(/^DELETE FROM admin_token_failures/), expect.stringMatching(/^INSERT INTO admin_token_failures/)]);
    } finally {
      other.db.removeListener('query', onQuery);
    }
  });
});
