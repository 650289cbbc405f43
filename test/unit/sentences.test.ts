import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// The dashboards' sentence module is a browser ES module: it runs here in a plain Node process (as
// the browser would load it), so what a merchant reads is checked without a browser.
const MODULE = pathToFileURL(path.join(__dirname, '../../src/dashboards/kit/static/sentences.js')).href;

function sentences(calls: Array<[string, unknown]>): unknown[] {
  const script = `const m = await import(${JSON.stringify(MODULE)}); const calls = JSON.parse(process.argv[1]); console.log(JSON.stringify(calls.map(([fn, arg]) => m[fn](arg))));`;
  return JSON.parse(execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script, JSON.stringify(calls)], { encoding: 'utf8' })) as unknown[];
}

const person = { actor: 'usr_1', actor_kind: 'person', actor_email: 'ingrid@shop.example' };

describe('the audit log as sentences', () => {
  it('names people by email, amounts as money, and each changed setting before and after', () => {
    expect(sentences([
      ['auditSentence', { ...person, action: 'member.role_changed', target: 'usr_2', details: { email: 'ada@shop.example', from: 'developer', to: 'owner' } }],
      ['auditSentence', { ...person, action: 'charge.refunded', target: 'ch_1', details: { amount_cents: 6400, checkout_id: 'chk_1' } }],
      ['auditSentence', { actor: 'admin', actor_kind: 'admin', actor_email: null, action: 'charge.refunded', target: 'ch_1', details: { amount_cents: 6400 } }],
      ['auditSentence', { ...person, action: 'webhook_url.changed', target: 'mer_1', details: { changes: { webhook_url: { from: 'https://a.example/hooks', to: 'https://b.example/hooks' } } } }],
      ['auditSentence', { actor: 'opr_1', actor_kind: 'operator', actor_email: 'olga@operator.example', action: 'settings.changed', target: 'mer_1', details: { changes: { review: { from: { enabled: false, min_amount_cents: 1 }, to: { enabled: true, min_amount_cents: 50000 } } } } }],
      ['auditSentence', { ...person, action: 'enabled_events.changed', target: 'mer_1', details: { from: ['customer.unrestricted'], to: [] } }],
      ['auditSentence', { ...person, action: 'signing_secret.revealed', target: 'mer_1', details: {}, client_address: '203.0.113.9' }],
    ])).toEqual([
      { sentence: "ingrid@shop.example changed ada@shop.example's role from Developer to Owner.", lines: [] },
      { sentence: 'Refunded $64.00 by ingrid@shop.example.', lines: [] },
      { sentence: 'Refunded $64.00 by the operator (admin token).', lines: [] },
      { sentence: 'ingrid@shop.example changed the webhook URL.', lines: ['The webhook URL changed from https://a.example/hooks to https://b.example/hooks.'] },
      { sentence: 'olga@operator.example (operator) changed the settings.', lines: ['The review rule changed from off to on, from $500.00.'] },
      // An entry written before before-and-after was recorded still reads as a change.
      { sentence: 'ingrid@shop.example changed the enabled events.', lines: ['The enabled events changed from customer.unrestricted to none.'] },
      { sentence: 'ingrid@shop.example revealed the webhook signing secret from 203.0.113.9.', lines: [] },
    ]);
  });
});

describe("the operator's audit log as sentences", () => {
  it('says which email a refused sign-in tried, from which address and why; roles and payments in words', () => {
    const refused = { actor: 'anonymous', actor_kind: 'anonymous', actor_email: 'mallory@example.com', target: null, client_address: '203.0.113.7' };
    expect(sentences([
      ['auditSentence', { ...refused, action: 'sign_in.failed', details: { email: 'mallory@example.com', reason: 'password' } }],
      ['auditSentence', { ...refused, action: 'sign_in.failed', details: { email: 'mallory@example.com', reason: 'totp_code' } }],
      ['auditSentence', { ...refused, action: 'sign_in.throttled', details: { email: 'mallory@example.com', limit: 'account' } }],
      ['auditSentence', { actor: 'opr_1', actor_kind: 'operator', actor_email: 'olga@operator.example', action: 'invitation.created', target: 'inv_1', details: { email: 'new@operator.example', role: 'operator_admin' } }],
      ['actorText', refused],
      ['roleName', 'operator_reviewer'],
      ['paymentKind', 'debit'],
    ])).toEqual([
      { sentence: 'Someone from 203.0.113.7 failed to sign in as mallory@example.com (wrong email or password).', lines: [] },
      { sentence: 'Someone from 203.0.113.7 failed to sign in as mallory@example.com (wrong authenticator code).', lines: [] },
      { sentence: 'Sign-ins as mallory@example.com from 203.0.113.7 are paused for a while: too many failures (account).', lines: [] },
      { sentence: 'olga@operator.example (operator) invited new@operator.example as Operator admin.', lines: [] },
      'someone trying mallory@example.com',
      'Operator reviewer',
      'withdrawal',
    ]);
  });
});

describe('the checkout timeline as sentences', () => {
  it('says who refunded and numbers delivery attempts once, with the answer and its time', () => {
    expect(sentences([
      ['timelineSentence', { kind: 'refund', summary: '', details: { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 6400, source: 'dashboard', requested_by: 'ingrid@shop.example', status: 'succeeded' } }],
      ['timelineSentence', { kind: 'webhook.attempt', summary: '', details: { type: 'checkout.succeeded', attempt: 2, series: 1, http_status: 500, duration_ms: 1200, error: null } }],
      ['timelineSentence', { kind: 'webhook.attempt', summary: '', details: { type: 'checkout.succeeded', attempt: 1, series: 2, http_status: null, duration_ms: 30, error: 'connection refused' } }],
      ['timelineSentence', { kind: 'charge.created', summary: '', details: { charge_id: 'ch_1', amount_cents: 2500, transaction_type: 'credit', status: 'succeeded' } }],
      ['recordIds', { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 6400 }],
    ])).toEqual([
      'Refunded $64.00 by ingrid@shop.example.',
      'Delivery attempt 2 of checkout.succeeded: HTTP 500 in 1.2 s.',
      'Delivery attempt 1 of checkout.succeeded (delivery series 2): connection refused in 30 ms.',
      'A deposit charge of $25.00 was created: succeeded.',
      ['re_1', 'ch_1'],
    ]);
  });
});
