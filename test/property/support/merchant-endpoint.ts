import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the merchant's endpoint answers: a status, after an optional delay (slow = past the 10 s timeout). */
export type Answer = 'ok' | 'refuse402' | 'error500' | 'slow' | 'late_ok';

export const ANSWERS: Record<Answer, { status: number; delayMs: number }> = {
  ok: { status: 200, delayMs: 0 },
  refuse402: { status: 402, delayMs: 0 },
  error500: { status: 500, delayMs: 0 },
  // Past the 10 s hold and delivery timeout: the service must give up on it.
  slow: { status: 200, delayMs: 10_600 },
  // Accepted, but late enough that other commands can act while the hold is unanswered.
  late_ok: { status: 200, delayMs: 1_200 },
};

export interface Received {
  route: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  receivedAt: number;
}

/** One merchant's endpoint: its answers to holds and to deliveries are set by commands. */
export interface Route {
  holdAnswer: Answer;
  deliveryAnswer: Answer;
  /** Runs when a hold arrives, before it is answered (a command acting while the hold is unanswered). */
  onHold?: (request: Received) => Promise<void>;
}

/**
 * A real HTTP server standing in for the merchants' webhook endpoints. Each property run gets
 * its own route (its merchant's webhook_url), so runs never see each other's deliveries.
 */
export class MerchantEndpoint {
  readonly requests: Received[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly pending = new Set<NodeJS.Timeout>();
  private server!: Server;
  private base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.handle(req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async handle(route: string, headers: IncomingHttpHeaders, rawBody: string, res: import('node:http').ServerResponse) {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const received: Received = { route, headers, rawBody, body, receivedAt: Date.now() };
    this.requests.push(received);
    const policy = this.routes.get(route);
    const isHold = (body as { type?: string } | undefined)?.type === 'checkout.hold';
    if (isHold && policy?.onHold) {
      const hook = policy.onHold;
      policy.onHold = undefined;
      await hook(received).catch(() => undefined);
    }
    const answer = ANSWERS[policy ? (isHold ? policy.holdAnswer : policy.deliveryAnswer) : 'ok'];
    const send = () => {
      if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
    };
    if (answer.delayMs === 0) return send();
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      send();
    }, answer.delayMs);
    this.pending.add(timer);
  }

  /** A new route with its answers; returns its URL (the merchant's webhook_url). */
  open(name: string, route: Route): string {
    this.routes.set(`/hooks/${name}`, route);
    return `${this.base}/hooks/${name}`;
  }

  route(name: string): Route {
    return this.routes.get(`/hooks/${name}`)!;
  }

  receivedBy(name: string): Received[] {
    return this.requests.filter((r) => r.route === `/hooks/${name}`);
  }

  async stop(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
