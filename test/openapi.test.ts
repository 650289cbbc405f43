import SwaggerParser from '@apidevtools/swagger-parser';
import { startService, type Service } from './support/harness';
import { request } from './support/http';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

/** The contract's nine operations; everything else the document describes is tagged an extension. */
const CONTRACT_OPERATIONS = [
  'GET /api/v1/charges/{id}',
  'GET /api/v1/customers/search',
  'GET /api/v1/device_pings/latest_geo_check',
  'PATCH /api/v1/customers/{id}',
  'POST /api/v1/charges/{id}/refund',
  'POST /api/v1/checkouts',
  'POST /api/v1/customers',
  'POST /api/v1/device_pings',
  'POST /api/v1/kyc/upsert',
];

type Operation = { tags?: string[]; operationId?: string };

describe('GET /api/v1/openapi.json', () => {
  it('serves a valid OpenAPI 3 document, version 1.4.0, with the nine contract operations and tagged extensions', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.info.version).toBe('1.4.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
    const operations = Object.entries(res.body.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    const names = operations.map((o) => o.name);
    for (const contract of CONTRACT_OPERATIONS) expect(names).toContain(contract);
    for (const { name, op } of operations) {
      if (CONTRACT_OPERATIONS.includes(name)) continue;
      expect([name, op.tags?.some((t) => t.startsWith('Extensions'))]).toEqual([name, true]);
    }
  });
});
