import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';

/**
 * What reaches the service before any route: compressed bodies, asset paths in disguise, and
 * requests whose URL or headers are larger than the server reads. Each answer is in the
 * contract's shape and the credential is checked before anything about the body.
 */
let service: Service;
let merchant: MerchantCredentials;
beforeAll(async () => {
  service = await startService({ worker: false });
  merchant = await onboard(service);
});
afterAll(async () => service.stop());

const ENCODINGS = ['gzip', 'br', 'deflate'] as const;
const COMPRESS = { gzip: gzipSync, br: brotliCompressSync, deflate: deflateSync };

/** fetch would not send bytes that are not text as we give them; node:http sends them unchanged. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const url = new URL(service.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('compressed bodies (Content-Encoding)', () => {
  // Audit regression: a body that failed to decode was answered 400 "Malformed request URL."
  // before the credential was looked at.
  it.each(ENCODINGS)('checks the credential before a %s body that does not decode, then answers 400 {error, hint}', async (encoding) => {
    const garbage = Buffer.from('this is not compressed at all');
    const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
    for (const authorization of [undefined, 'Bearer key_doesnotexist0000000000000000000000000']) {
      const res = await send('POST', '/api/v1/customers', { ...headers, ...(authorization ? { authorization } : {}) }, garbage);
      expect([encoding, authorization, res.status, res.body.error]).toEqual([encoding, authorization, 422, 'API key not found.']);
    }
    expect((await send('POST', '/admin/v1/merchants', headers, garbage)).status).toBe(401);

    const res = await send('POST', '/api/v1/customers', { ...headers, authorization: `Bearer ${merchant.api_key}` }, garbage);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Request body could not be decoded.', hint: expect.stringContaining(encoding), request_id: expect.any(String) });
    const admin = await send('POST', '/admin/v1/merchants', { ...headers, authorization: `Bearer ${service.adminToken}` }, garbage);
    expect([admin.status, admin.body.error]).toEqual([400, 'Request body could not be decoded.']);
  });

  it.each(ENCODINGS)('reads a %s body that decodes as the JSON it carries', async (encoding) => {
    const body = COMPRESS[encoding](Buffer.from(JSON.stringify(uniqueCustomer())));
    const res = await send('POST', '/api/v1/customers', { 'content-type': 'application/json', 'content-encoding': encoding, authorization: `Bearer ${merchant.api_key}` }, body);
    expect(res.status).toBe(201);
    expect(res.body.id).toEqual(expect.any(String));
  });
});

describe('the wallet page is never served as an asset', () => {
  // Audit regression: the guard looked at the raw path, so a percent-encoded letter of ".html"
  // served the page's HTML from /wallet-assets without its CSP and framing headers.
  it.each([
    '/wallet-assets/index.%68tml',
    '/wallet-assets/index.%68%74%6d%6c',
    '/wallet-assets/index%2Ehtml',
    '/wallet-assets/index.%48TML',
    '/wallet-assets/INDEX.%68tml',
    '/wallet-assets/index.%2568tml',
    '/wallet-assets/index.ht%6Dl',
    '/wallet-assets/x/..%2Findex.html',
    '/wallet-assets/%2E/index.html',
  ])('%s is 404 Not found, never the page', async (path) => {
    const res = await send('GET', path, {});
    expect([path, res.status, res.body?.error]).toEqual([path, 404, 'Not found.']);
  });

  it('still serves the page\'s assets, percent-encoded or not', async () => {
    for (const path of ['/wallet-assets/wallet.js', '/wallet-assets/wallet.%6As', '/wallet-assets/wallet.css']) {
      const res = await fetch(`${service.baseUrl}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(await res.text()).not.toContain('<html');
    }
  });
});

/**
 * Sends raw bytes and reads the whole answer (the server closes the connection after it). Straight
 * to an API process, past the round-robin proxy of a replicated run: the API's own parser is tested.
 */
function raw(bytes: string): Promise<string> {
  const url = new URL(service.proxy?.backends[0] ?? service.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function parseAnswer(text: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]), headers: head!, body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('requests larger than the server reads', () => {
  // Audit regression: Node's bare "431 Request Header Fields Too Large" with no body at all.
  it('a 20 kB header is 431 with a JSON {error, hint}', async () => {
    const res = await send('GET', '/api/v1/customers/search?email=a@b.co', { authorization: `Bearer ${merchant.api_key}`, 'x-padding': 'a'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'Request headers are too large.', hint: expect.stringContaining('16 kB'), request_id: expect.stringMatching(/^req_/) });
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });

  it('a 20 kB URL is 431 with a JSON {error, hint}, on a raw connection too', async () => {
    const answer = parseAnswer(await raw(`GET /api/v1/customers/search?email=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expect(answer.headers).toMatch(/x-content-type-options: nosniff/i);
    expect(answer.body).toEqual({ error: 'Request headers are too large.', hint: expect.any(String), request_id: expect.any(String) });
  });

  it('a request that is not HTTP is 400 with a JSON {error, hint}', async () => {
    const answer = parseAnswer(await raw('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Malformed HTTP request.', hint: expect.any(String), request_id: expect.any(String) });
  });

  it('still answers requests of an ordinary size on a new connection', async () => {
    expect((await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: merchant.api_key })).status).toBe(200);
  });
});
