// The SDK's webhook verification: constructEvent and the test-header helper merchants use in their own tests.
import { constructEvent, generateTestHeaders, WebhookError, WebhookPayloadError, WebhookSignatureError, type WebhookEvent } from '@payments-service/sdk';

const secret = 'wss_test_secret';
const payload = JSON.stringify({ event_id: 'ev_1', data: { id: 'chk_1', type: 'withdrawal', charge: { amount_cents: 700 } }, type: 'checkout.hold' });
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof WebhookError ? [error.name, (error as WebhookSignatureError).reason] : error;
  }
  return 'accepted';
};

describe('constructEvent', () => {
  it('returns the typed event for headers from generateTestHeaders, under either header name and in any case', () => {
    const headers = generateTestHeaders({ payload, secret });
    const event: WebhookEvent = constructEvent(payload, headers, secret);
    expect(event.type === 'checkout.hold' && event.data.charge.amount_cents).toBe(700);
    expect(constructEvent(payload, { 'service-webhook-signature': headers['SERVICE-WEBHOOK-SIGNATURE'] }, secret).event_id).toBe('ev_1');
    expect(constructEvent(payload, { SERVICE_SIGNATURE: headers.SERVICE_SIGNATURE }, secret).event_id).toBe('ev_1');
    expect(constructEvent(Buffer.from(payload), new Headers({ service_signature: headers.SERVICE_SIGNATURE }), secret).event_id).toBe('ev_1');
  });

  it('accepts any v1 of a header signed with several secrets, and any of several secrets the receiver holds', () => {
    const both = generateTestHeaders({ payload, secret: ['wss_new', 'wss_old'] });
    expect(both['SERVICE-WEBHOOK-SIGNATURE']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const held of ['wss_new', 'wss_old', ['wss_other', 'wss_old']]) expect(constructEvent(payload, both, held).event_id).toBe('ev_1');
    expect(reason(() => constructEvent(payload, both, 'wss_other'))).toEqual(['WebhookSignatureError', 'no_matching_signature']);
  });

  it('enforces the timestamp tolerance both ways, 300 s by default', () => {
    const now = 1_800_000_000;
    const at = (timestamp: number, options = {}) => () => constructEvent(payload, generateTestHeaders({ payload, secret, timestamp }), secret, { now: () => now * 1000, ...options });
    expect(reason(at(now - 300))).toBe('accepted');
    expect(reason(at(now - 301))).toEqual(['WebhookSignatureError', 'timestamp_out_of_tolerance']);
    expect(reason(at(now + 301))).toEqual(['WebhookSignatureError', 'timestamp_out_of_tolerance']);
    expect(reason(at(now - 1000, { toleranceSeconds: 1000 }))).toBe('accepted');
    // A too-old delivery says so even when another held secret does not match.
    expect(reason(() => constructEvent(payload, generateTestHeaders({ payload, secret, timestamp: now - 999 }), ['wss_other', secret], { now: () => now * 1000 }))).toEqual([
      'WebhookSignatureError',
      'timestamp_out_of_tolerance',
    ]);
  });

  it('throws typed errors: no header, a malformed header, a body that is no event', () => {
    expect(reason(() => constructEvent(payload, {}, secret))).toEqual(['WebhookSignatureError', 'missing_header']);
    expect(reason(() => constructEvent(payload, { 'SERVICE-WEBHOOK-SIGNATURE': 'v1=abc' }, secret))).toEqual(['WebhookSignatureError', 'malformed_header']);
    for (const body of ['not json', '[]', '{"event_id":"ev_1","type":"checkout.hold"}']) {
      expect(() => constructEvent(body, generateTestHeaders({ payload: body, secret }), secret)).toThrow(WebhookPayloadError);
    }
    expect(() => constructEvent(payload, generateTestHeaders({ payload, secret }), [])).toThrow(TypeError);
  });
});
