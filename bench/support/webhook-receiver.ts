import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a merchant's endpoint got: the envelope's fields a benchmark looks at, and when it arrived. */
export interface ReceivedWebhook {
  eventId: string;
  type: string;
  /** `data.id`: the checkout's id for checkout events. */
  dataId?: string;
  /** Receipt time, ms since the epoch. */
  at: number;
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

/**
 * A merchant's webhook endpoint on 127.0.0.1 that answers 200 as soon as a delivery's body is in,
 * so the service's delivery is all a benchmark measures. Signatures are not checked.
 */
export async function startWebhookReceiver(onWebhook: (webhook: ReceivedWebhook) => void): Promise<WebhookReceiver> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event_id: string; type: string; data?: { id?: string } };
        onWebhook({ eventId: body.event_id, type: body.type, dataId: body.data?.id, at });
      } catch {
        // Not an envelope: answered all the same, counted nowhere.
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
