import { createHmac } from 'node:crypto';
import {
  SIGNATURE_HEADERS,
  WebhookSignatureError,
  generateTestHeader,
  signPayload,
  signPayloadWithSecrets,
  signatureFromHeaders,
  verifySignature,
} from '../../src/webhooks/signature';

const secret = 'wss_test_secret';
const body = '{"event_id":"ev_1","data":{"id":"chk_1"},"type":"checkout.succeeded"}';
const t = 1_900_000_000;
const at = (seconds: number) => () => seconds * 1000;

function failure(run: () => void): WebhookSignatureError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error;
    throw error;
  }
  throw new Error('expected a WebhookSignatureError');
}

describe('signPayload', () => {
  it('is t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>">', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signPayload(body, secret, t)).toBe(`t=${t},v1=${expected}`);
  });

  it('refuses a timestamp in milliseconds or with a fraction', () => {
    expect(() => signPayload(body, secret, 1.5)).toThrow(TypeError);
    expect(() => signPayload(body, secret, -1)).toThrow(TypeError);
  });
});

describe('verifySignature', () => {
  const header = signPayload(body, secret, t);

  it('accepts a fresh signature, for a string or a Buffer body', () => {
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t) })).not.toThrow();
    expect(() => verifySignature({ rawBody: Buffer.from(body), header, secret, now: at(t + 10) })).not.toThrow();
  });

  it('refuses a tampered body or another secret', () => {
    const tampered = body.replace('chk_1', 'chk_2');
    expect(failure(() => verifySignature({ rawBody: tampered, header, secret, now: at(t) })).reason).toBe(
      'no_matching_signature',
    );
    expect(failure(() => verifySignature({ rawBody: body, header, secret: 'wss_other', now: at(t) })).reason).toBe(
      'no_matching_signature',
    );
  });

  it('refuses a signature moved onto another timestamp', () => {
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(failure(() => verifySignature({ rawBody: body, header: moved, secret, now: at(t) })).reason).toBe(
      'no_matching_signature',
    );
  });

  it('enforces the 300 s tolerance by default, in both directions', () => {
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t + 300) })).not.toThrow();
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t - 300) })).not.toThrow();
    for (const now of [t + 301, t - 301]) {
      expect(failure(() => verifySignature({ rawBody: body, header, secret, now: at(now) })).reason).toBe(
        'timestamp_out_of_tolerance',
      );
    }
  });

  it('takes a custom tolerance', () => {
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t + 20), toleranceSeconds: 10 })).toThrow(
      WebhookSignatureError,
    );
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t + 5), toleranceSeconds: 10 })).not.toThrow();
    expect(() => verifySignature({ rawBody: body, header, secret, toleranceSeconds: -1 })).toThrow(TypeError);
  });

  it('uses the real clock when none is injected', () => {
    const fresh = generateTestHeader({ payload: body, secret });
    expect(() => verifySignature({ rawBody: body, header: fresh, secret })).not.toThrow();
    expect(() => verifySignature({ rawBody: body, header, secret })).toThrow(/tolerance/);
  });

  it('accepts any matching v1 entry among several, and ignores other schemes', () => {
    const good = header.split('v1=')[1];
    const bad = 'ab'.repeat(32);
    for (const multi of [
      `t=${t},v1=${bad},v1=${good}`,
      `t=${t},v1=${good},v1=${bad}`,
      `t=${t}, v0=${bad}, v1=short, v1=${good}`,
    ]) {
      expect(() => verifySignature({ rawBody: body, header: multi, secret, now: at(t) })).not.toThrow();
    }
    const noneMatch = `t=${t},v1=${bad},v1=x`;
    const error = failure(() => verifySignature({ rawBody: body, header: noneMatch, secret, now: at(t) }));
    expect(error.reason).toBe('no_matching_signature');
  });

  it('refuses a missing header', () => {
    for (const missing of [undefined, null, '']) {
      expect(failure(() => verifySignature({ rawBody: body, header: missing, secret, now: at(t) })).reason).toBe(
        'missing_header',
      );
    }
  });

  it.each([
    ['no timestamp', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${t}`],
    ['a non-numeric timestamp', `t=soon,v1=${'a'.repeat(64)}`],
    ['garbage', 'not a signature'],
  ])('refuses a malformed header: %s', (_label, malformed) => {
    const error = failure(() => verifySignature({ rawBody: body, header: malformed, secret, now: at(t) }));
    expect(error.reason).toBe('malformed_header');
    expect(error.name).toBe('WebhookSignatureError');
  });
});

describe('headers', () => {
  it('names the canonical header first and the legacy alias second', () => {
    expect(SIGNATURE_HEADERS).toEqual(['SERVICE-WEBHOOK-SIGNATURE', 'SERVICE_SIGNATURE']);
  });

  it('reads either header from Node-style lowercased headers, canonical first', () => {
    expect(signatureFromHeaders({ 'service-webhook-signature': 'a', service_signature: 'b' })).toBe('a');
    expect(signatureFromHeaders({ service_signature: 'b' })).toBe('b');
    expect(signatureFromHeaders({ 'content-type': 'application/json' })).toBeUndefined();
  });
});

describe('generateTestHeader', () => {
  it('signs with the given timestamp, and verifies', () => {
    const header = generateTestHeader({ payload: body, secret, timestamp: t });
    expect(header).toBe(signPayload(body, secret, t));
    expect(() => verifySignature({ rawBody: body, header, secret, now: at(t) })).not.toThrow();
  });
});

describe('rotation: several v1 signatures in one header', () => {
  const next = 'wss_next_secret';
  const rotating = signPayloadWithSecrets(body, [next, secret], t);

  it('carries t once and one v1 per secret, newest first', () => {
    const [stamp, first, second] = rotating.split(',');
    expect(stamp).toBe(`t=${t}`);
    expect(first).toBe(signPayload(body, next, t).split(',')[1]);
    expect(second).toBe(signPayload(body, secret, t).split(',')[1]);
  });

  it('verifies with either secret, and with neither fails', () => {
    expect(() => verifySignature({ rawBody: body, header: rotating, secret, now: at(t) })).not.toThrow();
    expect(() => verifySignature({ rawBody: body, header: rotating, secret: next, now: at(t) })).not.toThrow();
    expect(failure(() => verifySignature({ rawBody: body, header: rotating, secret: 'wss_other', now: at(t) })).reason).toBe('no_matching_signature');
  });

  it('refuses an empty secret when verifying and when signing', () => {
    expect(() => verifySignature({ rawBody: body, header: rotating, secret: '', now: at(t) })).toThrow(TypeError);
    expect(() => signPayloadWithSecrets(body, [next, ''], t)).toThrow(TypeError);
    expect(() => signPayloadWithSecrets(body, [], t)).toThrow(TypeError);
  });
});
