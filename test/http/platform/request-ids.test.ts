import pino from 'pino';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';
import { createApp } from '../../../src/app';
import { REDACTED_PATHS } from '../../../src/logger';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => {
  await service.stop();
});

describe('request ids', () => {
  it('every response carries X-Request-Id, and every error body the same request_id', async () => {
    const ok = await request(service.baseUrl, 'GET', '/healthz');
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);

    const cases = [
      await request(service.baseUrl, 'POST', '/api/v1/customers', { body: { email: 'a@example.com' } }), // no API key: 422
      await request(service.baseUrl, 'GET', '/api/v1/nothing-here'), // 404
      await request(service.baseUrl, 'PATCH', '/api/v1/customers/cus_x', { token: 'key_nope', rawBody: '{not json' }), // credential first: 422
      await request(service.baseUrl, 'PATCH', '/admin/v1/merchants/mer_x/settings', { token: service.adminToken, rawBody: '{not json' }), // 400
      await request(service.baseUrl, 'GET', '/admin/v1/merchants/mer_x'), // 401
    ];
    expect(cases.map((c) => c.status)).toEqual([422, 404, 422, 400, 401]);
    for (const res of cases) {
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^req_/);
      expect(res.body.request_id).toBe(id);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const ids = new Set(cases.map((c) => c.body.request_id));
    expect(ids.size).toBe(cases.length);
  });

  it("keeps a caller's plain X-Request-Id and replaces one that is not", async () => {
    const kept = await request(service.baseUrl, 'GET', '/api/v1/charges/ch_x', { headers: { 'x-request-id': 'merchant-trace-0001' } });
    expect(kept.headers.get('x-request-id')).toBe('merchant-trace-0001');
    expect(kept.body.request_id).toBe('merchant-trace-0001');
    const replaced = await request(service.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('access logs', () => {
  it('one structured line per request with the request id, status and duration, and no secret or searched personal data', async () => {
    const lines: Array<Record<string, any>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    const server: Server = await new Promise((resolve) => {
      const s = createApp({ ...service.deps, logger }).listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const merchant = await onboard({ baseUrl: base, adminToken: service.adminToken });
      const page = await fetch(`${base}/checkout/chk_secretive?client_secret=cs_very_secret_value`);
      const search = await request(base, 'GET', '/api/v1/customers/search?email=nobody@example.com', { token: merchant.api_key });
      expect(search.status).toBe(200);
      // A customer search names the person looked for: personal data, kept out of the log like a secret.
      const byPhone = await request(base, 'GET', '/api/v1/customers/search?phone_number=%2B1%20(555)%20867-5309&internal_id=crm-42', { token: merchant.api_key });
      expect(byPhone.status).toBe(200);
      // The admin search's q may be part of an email address: redacted too.
      const adminSearch = await request(base, 'GET', '/admin/v1/checkouts?q=findme%40example.com&merchant_id=mer_x', { token: service.adminToken });
      expect(adminSearch.status).toBe(200);

      const access = lines.filter((l) => l.req && l.res);
      const pageLine = access.find((l) => l.req.url.startsWith('/checkout/chk_secretive'))!;
      expect(pageLine.req.url).toBe('/checkout/chk_secretive?client_secret=[redacted]');
      expect(pageLine.req.id).toBe(page.headers.get('x-request-id'));
      expect(pageLine.res.statusCode).toBe(page.status);
      expect(pageLine.responseTime).toEqual(expect.any(Number));
      const searchLine = access.find((l) => l.req.url.startsWith('/api/v1/customers/search'))!;
      expect(searchLine).toMatchObject({ level: 30, req: { method: 'GET', id: search.headers.get('x-request-id') }, res: { statusCode: 200 } });
      const phoneLine = access.find((l) => l.req.id === byPhone.headers.get('x-request-id'))!;
      expect(searchLine.req.url).toBe('/api/v1/customers/search?email=[redacted]');
      expect(phoneLine.req.url).toBe('/api/v1/customers/search?phone_number=[redacted]&internal_id=crm-42');
      expect(access.find((l) => l.req.id === adminSearch.headers.get('x-request-id'))!.req.url).toBe('/admin/v1/checkouts?q=[redacted]&merchant_id=mer_x');

      const everything = lines.map((l) => JSON.stringify(l)).join('\n');
      for (const secret of ['cs_very_secret_value', merchant.api_key, service.adminToken, merchant.webhook_signing_secret, 'nobody@example.com', 'nobody%40example.com', '867-5309', 'findme']) {
        expect(everything).not.toContain(secret);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
