// A minimal merchant webhook receiver (node:http only) showing the three things every
// receiver must do: verify the signature over the raw body, de-duplicate by event_id, and
// answer checkout.hold with 2xx only when the customer really has the funds.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { constructEvent, WebhookError, type WebhookEvent } from '@payments-service/sdk';

const PORT = Number(process.env.PORT ?? 4000);
// One secret, or two separated by a comma while the merchant moves to a rolled one.
const SIGNING_SECRETS = (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(',').filter(Boolean);
// Stand-in for the merchant's own ledger: the service keeps no balance, so the merchant decides.
const AVAILABLE_BALANCE_CENTS = Number(process.env.AVAILABLE_BALANCE_CENTS ?? 100_000);
const MAX_BODY_BYTES = 1_000_000;

// In memory for the example only: a real merchant persists handled event ids (with the answer
// it gave) in its database, in the same transaction as the effect of the event.
const handled = new Map<string, number>();

function readRawBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

// Stub rule: the hold asks "may this withdrawal leave the customer's balance?"; answer yes
// only if it fits. A real merchant also reserves the amount until the charge's outcome arrives.
function customerHasFunds(event: WebhookEvent<'checkout.hold'>): boolean {
  return event.data.charge.amount_cents <= AVAILABLE_BALANCE_CENTS;
}

function decide(event: WebhookEvent): number {
  // The event is a union on `type`: inside this branch `event.data.charge` is the hold's charge.
  if (event.type === 'checkout.hold') return customerHasFunds(event) ? 200 : 402;
  // Other events only inform; book them (succeeded, returned, release_hold, ...) and answer 2xx.
  return 200;
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST') return answer(response, 405, { error: 'POST only' });
  const rawBody = await readRawBody(request);
  let event: WebhookEvent;
  try {
    // Verifies the signature over the exact bytes received, then parses them.
    event = constructEvent(rawBody, request.headers, SIGNING_SECRETS);
  } catch (error) {
    if (error instanceof WebhookError) return answer(response, 400, { error: error.message });
    throw error;
  }

  // Retries and resends reuse the event_id: give the same answer, do the work once.
  const earlier = handled.get(event.event_id);
  if (earlier !== undefined) {
    console.log(`${event.event_id} ${event.type} duplicate -> ${earlier}`);
    return answer(response, earlier, { received: true, duplicate: true });
  }
  const status = decide(event);
  handled.set(event.event_id, status);
  console.log(`${event.event_id} ${event.type} -> ${status}`);
  answer(response, status, { received: true });
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

if (SIGNING_SECRETS.length === 0 || !SIGNING_SECRETS.every((secret) => secret.startsWith('wss_'))) {
  console.error('Set WEBHOOK_SIGNING_SECRET to the wss_ secret shown when the merchant was onboarded.');
  process.exit(1);
}

createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    console.error(error);
    if (!response.headersSent) answer(response, 500, { error: 'internal error' });
  });
}).listen(PORT, () => console.log(`webhook receiver listening on http://localhost:${PORT}`));
