import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/http/client-errors';
import { createLogger } from '../../src/logger';

/**
 * The answers the HTTP parser's refusals get (src/http/client-errors.ts), on a bare server whose
 * time limits are short enough to reach: the sizes and malformed requests are also tested
 * through the whole service in test/request-hardening.test.ts.
 */
let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer({ headersTimeout: 300, requestTimeout: 400, connectionsCheckingInterval: 50 }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
    // Left open: the answer is under way when a later error on the connection arrives.
  });
  answerClientErrors(server, createLogger('silent'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function exchange(chunks: string[], gapMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    const giveUp = setTimeout(() => socket.destroy(), 3_000);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(Buffer.concat(received).toString('utf8'));
    });
    socket.on('error', reject);
  });
}

describe('answers to requests the HTTP parser refuses', () => {
  it('headers that do not arrive in time: 408 with a JSON {error, hint, request_id}, then the connection closes', async () => {
    const text = await exchange(['GET / HTTP/1.1\r\nHost: x\r\n']);
    const [head, body] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(JSON.parse(body!)).toEqual({ error: 'Request timed out.', hint: expect.any(String), request_id: expect.stringMatching(/^req_/) });
  });

  it('writes nothing over an answer already under way', async () => {
    // The first request is being answered when a malformed second one arrives on the same connection.
    const text = await exchange(['GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n'], 100);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).not.toContain('Malformed HTTP request.');
  });
});
