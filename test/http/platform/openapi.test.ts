import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import { createApp } from '../../../src/app';
import { EVENT_TYPES } from '../../../src/domain/event-catalog';
import { describeFields } from '../../../src/http/openapi-glossary';
import { presentCharge } from '../../../src/charges/present';
import type { CustomerRow } from '../../../src/storage/customers';
import type { PaymentMethodRow } from '../../../src/storage/payment-methods';
import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { listRoutes } from '../../support/routes';

let service: Service;
let doc: any;
beforeAll(async () => {
  service = await startService({ worker: false });
  const res = await request(service.baseUrl, 'GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => service.stop());

/** The contract's nine operations and the ids we give them; everything else is tagged an extension. */
const CONTRACT_OPERATIONS: Record<string, string> = {
  'GET /api/v1/charges/{id}': 'getCharge',
  'GET /api/v1/customers/search': 'searchCustomers',
  'GET /api/v1/device_pings/latest_geo_check': 'getLatestGeoCheck',
  'PATCH /api/v1/customers/{id}': 'updateCustomer',
  'POST /api/v1/charges/{id}/refund': 'refundCharge',
  'POST /api/v1/checkouts': 'createCheckout',
  'POST /api/v1/customers': 'createCustomer',
  'POST /api/v1/device_pings': 'createDevicePing',
  'POST /api/v1/kyc/upsert': 'upsertKyc',
};

type Operation = { operationId?: string; tags?: string[]; summary?: string; parameters?: Array<{ $ref?: string }> };
const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document; the contract part is version 1.4.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.4.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('keeps the nine contract operations, tags every other operation an extension, and names and summarises each', () => {
    const all = operations();
    for (const [name, id] of Object.entries(CONTRACT_OPERATIONS)) {
      const found = all.find((o) => o.name === name);
      expect([name, found?.op.operationId, found?.op.tags?.[0]?.startsWith('Extensions')]).toEqual([name, id, false]);
    }
    for (const { name, op } of all) {
      expect([name, typeof op.summary, typeof op.operationId]).toEqual([name, 'string', 'string']);
      if (!(name in CONTRACT_OPERATIONS)) expect([name, op.tags?.[0]?.startsWith('Extensions')]).toEqual([name, true]);
    }
    const ids = all.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes every field and parameter, with examples', () => {
    expect(describeFields(structuredClone(doc))).toEqual([]);
    const customer = doc.components.schemas.CustomerCreate.properties;
    expect([customer.email.example, customer.first_name.example, customer.phone_number.example]).toEqual(['ada@example.com', 'Ada', '2025550143']);
    expect(doc.components.schemas.Charge.properties.amount_cents.example).toBe(2500);
  });

  it('shows request and response examples for every contract operation, each valid against its schema', async () => {
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    // The examples are data, not schemas: formats and the `example` keyword are not checked here.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    for (const name of Object.keys(CONTRACT_OPERATIONS)) {
      const [method, path] = name.split(' ') as [string, string];
      const op = resolved.paths[path][method.toLowerCase()];
      const media = [
        ...(op.requestBody ? [['request', op.requestBody.content['application/json']]] : []),
        ...Object.entries(op.responses as Record<string, any>).map(([status, response]) => [status, response.content?.['application/json']]),
      ] as Array<[string, any]>;
      for (const [where, content] of media) {
        const examples = Object.entries((content?.examples ?? {}) as Record<string, { value: unknown }>);
        expect([name, where, examples.length > 0]).toEqual([name, where, true]);
        const validate = ajv.compile(content.schema);
        for (const [example, { value }] of examples) {
          validate(value);
          expect([name, where, example, validate.errors ?? []]).toEqual([name, where, example, []]);
        }
      }
      for (const parameter of (op.parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query')) {
        expect([name, parameter.name, parameter.schema?.example ?? parameter.example]).toEqual([name, parameter.name, expect.anything()]);
      }
    }
  });

  it('documents the optional Idempotency-Key on every public and wallet POST, and on the dashboard\'s signing secret roll', () => {
    const takesKey = (name: string) => /^POST \/(api|wallet)\/v1\//.test(name) || name === 'POST /merchant/v1/developers/webhook/signing_secret/roll';
    for (const { name, op } of operations()) {
      expect([name, op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey') ?? false]).toEqual([name, takesKey(name)]);
    }
  });

  it('describes every webhook payload in the webhooks section', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const hold = doc.webhooks['checkout.hold'].post;
    expect(hold.requestBody.content['application/json'].schema.properties).toHaveProperty('event_id');
    expect(JSON.stringify(hold)).toContain('ChargeEventData');
  });

  it("documents checkout.hold's data.charge.payment_method, the destination a hold answer is decided on (audit)", async () => {
    // Audit regression: every hold carries {fingerprint, payment_type, last4} in data.charge, but the
    // webhooks section described the hold with the plain charge event, so the field was undocumented.
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    const data = resolved.webhooks['checkout.hold'].post.requestBody.content['application/json'].schema.properties.data;
    const charge = [data, ...(data.allOf ?? [])].map((part: any) => part.properties?.charge).filter(Boolean);
    const destination = charge.map((c: any) => [c, ...(c.allOf ?? [])].map((part: any) => part.properties?.payment_method)).flat().find(Boolean);
    expect(destination?.required?.sort()).toEqual(['fingerprint', 'last4', 'payment_type']);
    // The other charge events carry no destination.
    const succeeded = resolved.webhooks['checkout.succeeded'].post.requestBody.content['application/json'].schema.properties.data;
    expect(JSON.stringify(succeeded)).not.toContain('last4');
  });

  it('documents every field of the charge GET /api/v1/charges/{id} answers, checkout_id and the customer included (audit)', async () => {
    // Audit regression: the answer carries checkout_id and the customer's internal_id, email, names
    // and phone, but the Charge schema listed neither (the customer as {id} plus anything).
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    const schema = resolved.paths['/api/v1/charges/{id}'].get.responses['200'].content['application/json'].schema;
    const at = new Date('2030-01-01T00:00:00Z');
    const customer = { id: 'cus_1', merchant_id: 'mer_1', internal_id: '42', email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone_number: '5551234567', date_of_birth: null, restriction_reason: null, restricted_at: null, created_at: at, updated_at: at } satisfies CustomerRow;
    const card = { id: 'pm_1', merchant_id: 'mer_1', customer_id: 'cus_1', payment_type: 'card', details: { card: { brand: 'visa', last4: '4242', funding: 'credit', exp_month: 12, exp_year: 2031 } }, fingerprint: 'f', processor_token: 't', saved: true, created_at: at, updated_at: at } as PaymentMethodRow;
    const charge = presentCharge(
      { id: 'ch_1', amount_cents: 500, transaction_type: 'credit', currency: 'USD', status: 'succeeded', failure_code: null, failure_message: null, checkout_id: 'chk_1', avs_result: 'Y', cvv_result: 'M', network_authorization_code: 'A1', processor_charge_id: 'p1', threeds: { version: '2.2.0' }, created_at: at, updated_at: at },
      customer,
      card,
    );
    expect(undocumentedFields(schema, charge)).toEqual([]);
    expect(Object.keys(schema.properties.customer.properties).sort()).toEqual(Object.keys(charge.customer).sort());
  });

  it('documents request_id in every error body, as the service answers it (audit)', async () => {
    // Audit regression: every error body carries request_id (to match a report with our logs), but
    // the Error and refund error schemas did not name it.
    const res = await request(service.baseUrl, 'GET', '/api/v1/charges/ch_x', { token: 'key_unknown' });
    expect(res.status).toBe(422);
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    for (const path of ['/api/v1/charges/{id}', '/api/v1/charges/{id}/refund']) {
      const method = path.endsWith('refund') ? 'post' : 'get';
      const schema = resolved.paths[path][method].responses['422'].content['application/json'].schema;
      expect([path, undocumentedFields(schema, res.body)]).toEqual([path, []]);
    }
  });

  it('covers every route the app serves', () => {
    const documented = new Set(operations().map((o) => o.name));
    const served = listRoutes(createApp(service.deps));
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    // And documents nothing the app does not serve.
    expect([...documented].filter((route) => !served.includes(route))).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('renders the document with Swagger UI from locally served assets only', async () => {
    const page = await fetch(`${service.baseUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/static/init.js']) {
      expect([asset, (await fetch(service.baseUrl + asset)).status]).toEqual([asset, 200]);
    }
    expect(await (await fetch(`${service.baseUrl}/docs/static/init.js`)).text()).toContain("url: '/api/v1/openapi.json'");
  });

  // Audit regression: /docs/assets served the whole swagger-ui-dist folder, so the package's own
  // demo page (index.html, whose swagger-initializer.js loads the third-party petstore document)
  // and oauth2-redirect.html ran as pages on the dashboard's origin with no CSP and no framing rule.
  it('serves only the two Swagger UI files the page loads, never the package\'s own HTML pages', async () => {
    for (const asset of ['index.html', 'oauth2-redirect.html', 'oauth2-redirect.js', 'swagger-initializer.js', 'swagger-ui.js', 'package.json', '', 'SWAGGER-UI.CSS']) {
      const res = await request(service.baseUrl, 'GET', `/docs/assets/${asset}`);
      expect([asset, res.status, res.body?.error]).toEqual([asset, 404, 'Not found.']);
    }
    const page = await fetch(`${service.baseUrl}/docs`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await fetch(`${service.baseUrl}/docs/assets/swagger-ui-bundle.js`)).headers.get('x-content-type-options')).toBe('nosniff');
  });
});

/**
 * The paths of `value` the dereferenced `schema` does not name. An object that merely allows more
 * (additionalProperties: true) documents nothing; a map (additionalProperties: a schema) documents any key.
 */
function undocumentedFields(schema: any, value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => undocumentedFields(schema?.items, item, `${path}[${i}]`));
  const parts = [schema, ...(schema?.allOf ?? []), ...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])].filter(Boolean);
  const properties: Record<string, any> = Object.assign({}, ...parts.map((part) => part.properties ?? {}));
  const map = parts.find((part) => typeof part.additionalProperties === 'object')?.additionalProperties;
  return Object.entries(value).flatMap(([key, field]) => {
    const fieldSchema = properties[key] ?? map;
    return fieldSchema ? undocumentedFields(fieldSchema, field, `${path}.${key}`) : [`${path}.${key}`];
  });
}
