import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  receivedAt: number;
}

/** The answer to one request: its status, after `delayMs`, with `body` (default the text 'ok'). */
export interface ReceiverAnswer {
  status: number;
  delayMs?: number;
  body?: string | Buffer;
}

export type Responder = (request: ReceivedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>;

/** A real local HTTP server standing in for a merchant's webhook endpoint; records every request. */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private server!: Server;
  responder: Responder = () => ({ status: 200 });
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = undefined;
        }
        const request = { headers: req.headers, rawBody, body, receivedAt: Date.now() };
        this.requests.push(request);
        const answer = await this.responder(request);
        const send = () => {
          if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
    return this;
  }

  ofType(type: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.body?.type === type);
  }

  forCheckout(checkoutId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.body?.data?.id === checkoutId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
