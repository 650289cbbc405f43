// The answer check every integration test runs (test/support/openapi-answers.ts) must catch what
// contradicts the document, or it proves nothing: here it is fed answers right and wrong.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkingAnswers, takeAnswerMismatches } from '../support/openapi-answers';

let server: Server;
let baseUrl: string;
/** What the fake API answers next: status, content type and body. */
let next: { status: number; type?: string; body: string };

beforeAll(async () => {
  server = createServer(
    checkingAnswers((_req, res) => {
      res.statusCode = next.status;
      if (next.type) res.setHeader('content-type', next.type);
      // Written in two parts, as a streamed answer would be.
      res.write(next.body.slice(0, 5));
      res.end(next.body.slice(5));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function answer(method: string, path: string, status: number, body: unknown, type = 'application/json; charset=utf-8'): Promise<string[]> {
  next = { status, type, body: typeof body === 'string' ? body : JSON.stringify(body) };
  await (await fetch(baseUrl + path, { method })).text();
  return takeAnswerMismatches();
}

const error = { error: 'Charge not found.', request_id: 'req_1' };

describe('the OpenAPI answer check', () => {
  it('passes answers the document describes, and paths it does not describe', async () => {
    expect(await answer('GET', '/api/v1/charges/ch_1', 422, error)).toEqual([]);
    expect(await answer('GET', '/healthz', 200, { status: 'ok' })).toEqual([]);
    expect(await answer('GET', '/not/documented', 404, 'nothing', 'text/plain')).toEqual([]);
  });

  it('records a body that misses required fields or has the wrong types, naming the operation and the field', async () => {
    const found = await answer('GET', '/api/v1/charges/ch_1', 200, { id: 'ch_1', amount_cents: 'ten' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^GET \/api\/v1\/charges\/\{id\} answered 200: .*(required|must be)/);
  });

  it('records an undocumented status, a content type the document does not name, and a body that is not JSON', async () => {
    expect(await answer('GET', '/api/v1/charges/ch_1', 418, error)).toEqual([expect.stringMatching(/answered 418: status not documented \(documented: 200, 422, 503\)/)]);
    expect(await answer('GET', '/api/v1/charges/ch_1', 422, '<p>no</p>', 'text/html')).toEqual([expect.stringMatching(/content type text\/html, documented application\/json/)]);
    expect(await answer('GET', '/api/v1/charges/ch_1', 422, '{"error":', 'application/json')).toEqual([expect.stringMatching(/the body is not JSON/)]);
  });

  it('matches a fixed path before a templated one (/customers/search is not /customers/{id})', async () => {
    const found = await answer('GET', '/api/v1/customers/search?email=a', 200, { id: 'cus_1' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^GET \/api\/v1\/customers\/search answered 200/);
  });
});
