// stripe-node pointed at stripe-mock, with Stripe's documented answers laid over its fixtures.
// Every request still goes to stripe-mock first, which checks it against Stripe's API description:
// a request it refuses is recorded in `rejected`, so a test can prove every call well formed.
// stripe-mock never declines and keeps no state, so an outcome a test relies on is scripted here,
// as a documented Stripe object or error, and never read from the fixture as if it were real.
import Stripe from 'stripe';
import type { StripeApiAddress } from '../../src/processors/stripe';

export interface SentRequest {
  method: string;
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

export class ScriptedStripe {
  readonly sent: SentRequest[] = [];
  readonly rejected: { path: string; body: unknown }[] = [];
  readonly address = stripeMockAddress();
  readonly httpClient: Stripe.HttpClient = Stripe.createFetchHttpClient((input, init) => this.fetch(input, init));

  constructor(private readonly script: StripeScript = {}) {}

  idempotencyKeys(pathPrefix: string): string[] {
    return this.sent.filter((r) => r.path.startsWith(pathPrefix) && r.idempotencyKey).map((r) => r.idempotencyKey!);
  }

  private async fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers);
    const sent: SentRequest = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      idempotencyKey: headers.get('idempotency-key'),
      body: new URLSearchParams(typeof init?.body === 'string' ? init.body : ''),
    };
    this.sent.push(sent);
    const response = await fetch(url, init);
    const fixture = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      this.rejected.push({ path: `${sent.method} ${sent.path}`, body: fixture });
      return json(response.status, fixture);
    }
    const rule = Object.entries(this.script).find(([prefix]) => `${sent.method} ${sent.path}`.startsWith(prefix));
    if (!rule) return json(200, fixture);
    const answer = rule[1](fixture, sent);
    if (answer === 'connection_lost') throw new TypeError('fetch failed: socket hang up');
    return json(answer.status, answer.body);
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
