// stripe-node pointed at stripe-mock, with Stripe's documented answers laid over its fixtures.
// Every request still goes to stripe-mock first, which checks it against Stripe's API description:
// a request it refuses is recorded in `rejected`, so a test can prove every call well formed.
// stripe-mock never declines and keeps no state, so an outcome a test relies on is scripted here,
// as a documented Stripe object or error, and never read from the fixture as if it were real.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { StripeApiAddress } from '../../src/processors/stripe';

export interface SentRequest {
  method: string;
  /** The key the request was made with (Bearer ...). */
  authorization: string | null;
  path: string;
  idempotencyKey: string | null;
  body: URLSearchParams;
}

/** What Stripe answers instead of stripe-mock's fixture: a status and body, or a lost connection. */
export type StripeAnswer = { status: number; body: unknown } | 'connection_lost';
/** By `METHOD /path` prefix: the answer made from stripe-mock's (already validated) fixture. */
export type StripeScript = Record<string, (fixture: Record<string, unknown>, sent: SentRequest) => StripeAnswer>;

export function stripeMockAddress(): StripeApiAddress {
  const host = process.env.STRIPE_MOCK_HOST;
  const port = Number(process.env.STRIPE_MOCK_PORT);
  if (!host || !port) throw new Error('STRIPE_MOCK_HOST/STRIPE_MOCK_PORT are not set: the jest global setup starts stripe-mock');
  return { host, port, protocol: 'http' };
}

/** The requests sent, those stripe-mock refused, and the script: shared by the in-process client and the proxy. */
class StripeExchange {
  readonly sent: SentRequest[] = [];
  readonly rejected: { path: string; body: unknown }[] = [];
  readonly address = stripeMockAddress();

  constructor(public script: StripeScript = {}) {}

  idempotencyKeys(pathPrefix: string): string[] {
    return this.sent.filter((r) => r.path.startsWith(pathPrefix) && r.idempotencyKey).map((r) => r.idempotencyKey!);
  }

  /** Sends the request to stripe-mock, then answers as the script says (stripe-mock's answer when it says nothing). */
  async exchange(method: string, path: string, headers: Headers, body: string): Promise<StripeAnswer> {
    const sent: SentRequest = { method, path, authorization: headers.get('authorization'), idempotencyKey: headers.get('idempotency-key'), body: new URLSearchParams(body) };
    this.sent.push(sent);
    const { host, port } = this.address;
    // stripe-mock takes test-mode keys only: a production merchant's live key is sent (and recorded) as it is, and stands in as a test key there.
    const authorization = headers.get('authorization') ?? '';
    if (authorization.startsWith('Bearer sk_live_')) headers.set('authorization', authorization.replace('sk_live_', 'sk_test_'));
    const response = await fetch(`http://${host}:${port}${path}`, { method, headers, body: method === 'GET' || method === 'DELETE' ? undefined : body });
    const fixture = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      this.rejected.push({ path: `${method} ${path}`, body: fixture });
      return { status: response.status, body: fixture };
    }
    const rule = Object.entries(this.script).find(([prefix]) => `${method} ${path.split('?')[0]}`.startsWith(prefix));
    return rule ? rule[1](fixture, sent) : { status: 200, body: fixture };
  }
}

/** stripe-node's HTTP client, in this process, answering through the exchange. */
export class ScriptedStripe extends StripeExchange {
  readonly httpClient: Stripe.HttpClient = Stripe.createFetchHttpClient(async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const answer = await this.exchange(init?.method ?? 'GET', url.pathname + url.search, new Headers(init?.headers), typeof init?.body === 'string' ? init.body : '');
    if (answer === 'connection_lost') throw new TypeError('fetch failed: socket hang up');
    return json(answer.status, answer.body);
  });
}

/**
 * The same as an HTTP server, for the service's own processes (STRIPE_API_BASE_URL): a script
 * can be changed between requests; a lost connection is a destroyed socket.
 */
export class StripeProxy extends StripeExchange {
  private server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
      this.exchange(req.method ?? 'GET', req.url ?? '/', headers, body).then(
        (answer) => {
          if (answer === 'connection_lost') return void req.socket.destroy();
          res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_scripted' }).end(JSON.stringify(answer.body));
        },
        (error: unknown) => res.writeHead(502).end(String(error)),
      );
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'request-id': 'req_scripted' } });
}

/** A Charge as Stripe shows a card payment: checks passed, an authorization code, 3D Secure when given. */
export function approvedCharge(fixture: unknown, threeds?: { version: string; result: string; eci: string }): Record<string, unknown> {
  const charge = structuredClone(fixture) as Record<string, any>;
  const card = charge.payment_method_details.card;
  charge.status = 'succeeded';
  charge.paid = true;
  card.checks = { address_line1_check: 'pass', address_postal_code_check: 'pass', cvc_check: 'pass' };
  card.authorization_code = '123456';
  card.three_d_secure = threeds ? { ...card.three_d_secure, version: threeds.version, result: threeds.result, electronic_commerce_indicator: threeds.eci } : null;
  return charge;
}

/** Stripe's card_error body for a declined PaymentIntent (docs: "Declines" and "Error codes"). */
export function cardDeclined(intent: Record<string, unknown>, declineCode: string, message: string) {
  const error = { type: 'card_error', code: 'card_declined', decline_code: declineCode, message, doc_url: 'https://stripe.com/docs/error-codes/card-declined', charge: 'ch_3ScriptedDecline' };
  return { status: 402, body: { error: { ...error, payment_intent: { ...intent, status: 'requires_payment_method', last_payment_error: error, latest_charge: 'ch_3ScriptedDecline' } } } };
}

/** The PaymentIntent Stripe answers for a confirmation that needs 3D Secure. */
export function requiresAction(intent: Record<string, unknown>) {
  return { status: 200, body: { ...intent, status: 'requires_action', latest_charge: null, next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } } };
}

/**
 * The PaymentIntent Stripe answers for a confirmation with a `return_url` that needs 3D Secure
 * (docs: "PaymentIntent object", next_action.redirect_to_url): the issuer's page to send the customer to.
 */
export function requiresRedirect(intent: Record<string, unknown>, sent: SentRequest) {
  const returnUrl = sent.body.get('return_url');
  const next_action = { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1Scripted&payment_intent=${String(intent.id)}`, return_url: returnUrl } };
  return { status: 200, body: { ...intent, status: 'requires_action', latest_charge: null, next_action } };
}

export function succeededIntent(intent: Record<string, unknown>) {
  return { status: 200, body: { ...intent, status: 'succeeded', latest_charge: approvedCharge(intent.latest_charge) } };
}

export const STRIPE_ERRORS = {
  rateLimited: { status: 429, body: { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' } } },
  badKey: { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****abcd' } } },
  idempotencyConflict: {
    status: 400,
    body: { error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' } },
  },
  chargeAlreadyRefunded: {
    status: 400,
    body: { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge ch_3ScriptedRefund has already been refunded.' } },
  },
} as const;
