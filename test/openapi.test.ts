import SwaggerParser from '@apidevtools/swagger-parser';
import { startService, type Service } from './support/harness';
import { request } from './support/http';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

describe('GET /api/v1/openapi.json', () => {
  it('serves a valid OpenAPI 3 document, version 1.4.0, covering exactly the public endpoints', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.info.version).toBe('1.4.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
    // Every endpoint of the contract, and no other.
    const operations = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([
      'GET /api/v1/charges/{id}',
      'GET /api/v1/customers/search',
      'GET /api/v1/device_pings/latest_geo_check',
      'PATCH /api/v1/customers/{id}',
      'POST /api/v1/charges/{id}/refund',
      'POST /api/v1/checkouts',
      'POST /api/v1/customers',
      'POST /api/v1/device_pings',
      'POST /api/v1/kyc/upsert',
    ]);
  });
});
