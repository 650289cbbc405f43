import SwaggerParser from '@apidevtools/swagger-parser';
import { startService, type Service } from './support/harness';
import { request } from './support/http';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

describe('GET /api/v1/openapi.json', () => {
  it('serves a valid OpenAPI 3 document, version 1.4.0, covering the public endpoints built so far', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.info.version).toBe('1.4.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/customers', '/api/v1/customers/{id}', '/api/v1/customers/search']),
    );
  });
});
