import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Headers up to this size pass through to the API, which answers oversized ones itself (16 kB). */
const PROXY_MAX_HEADER_BYTES = 64 * 1024;

/**
 * One address in front of several API processes, as a load balancer puts it: each HTTP request
 * (not each connection, since clients keep connections alive) goes to the next backend in turn.
 * Request and response are streamed through untouched, headers included. Headers larger than the
 * API reads are passed on, so the API's own 431 comes back.
 */
export class RoundRobinProxy {
  private server!: Server;
  private next = 0;
  readonly backends: string[] = [];
  /** Requests sent to each backend, by its base URL: shows that every backend took traffic. */
  readonly served = new Map<string, number>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer({ maxHeaderSize: PROXY_MAX_HEADER_BYTES }, (req, res) => {
      const backend = new URL(this.backends[this.next++ % this.backends.length]!);
      this.served.set(backend.origin, (this.served.get(backend.origin) ?? 0) + 1);
      const upstream = request(
        { host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Bad gateway.', hint: `The backend ${backend.origin} did not answer.` }));
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  add(baseUrl: string): void {
    this.backends.push(baseUrl);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
