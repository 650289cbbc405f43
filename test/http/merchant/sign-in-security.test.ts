import { currentTotpCode } from '../../../src/identity/secrets';
import { startService, type Service } from '../../support/harness';
import { waitFor } from '../../support/fixtures';
import { onboard, request } from '../../support/http';
import { countMailsTo, latestMailTo, linkIn } from '../../support/mailpit';
import { MAX_PASSWORD_RESET_MAILS_PER_HOUR } from '../../../src/identity/merchant-roles';
import { adminInvite, asMember, member, PASSWORD, signIn, signInRequest, tokenOf, uniqueEmail } from '../../support/merchant-accounts';

const PER_ACCOUNT = 3;
const PER_ADDRESS = 5;
const WINDOW_SECONDS = 30;

let service: Service;
beforeAll(async () => {
  service = await startService({
    worker: false,
    replicas: 1,
    env: {
      MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT),
      MERCHANT_SIGN_IN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      MERCHANT_SIGN_IN_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
    },
  });
});
afterAll(async () => {
  await service.stop();
});

/** A client address of its own per call site (the app believes X-Forwarded-For from loopback). */
let lastAddress = 0;
const newAddress = () => `203.0.113.${++lastAddress}`;
const from = (address: string) => ({ 'x-forwarded-for': address });
const throttled = { error: expect.stringMatching(/^Too many failed sign-ins for this (account|address)\.$/), hint: expect.stringMatching(/^Try again in \d+ seconds\.$/), request_id: expect.any(String) };

function expectThrottled(res: Awaited<ReturnType<typeof signInRequest>>, what: 'account' | 'address'): void {
  expect([res.status, res.body]).toEqual([429, { ...throttled, error: `Too many failed sign-ins for this ${what}.` }]);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('repeated sign-in failures are throttled', () => {
  it(`per account: after ${PER_ACCOUNT} wrong passwords from any addresses, the right one is 429 with Retry-After too`, async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    for (let i = 1; i <= PER_ACCOUNT; i += 1) {
      const res = await signInRequest(service, { email: someone.email, password: `wrong password ${i}` }, from(newAddress()));
      expect([i, res.status]).toEqual([i, 401]);
    }
    expectThrottled(await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress())), 'account');
    // Another account from the same addresses is not concerned.
    const other = await member(service, (await onboard(service)).id, 'viewer');
    expect((await signInRequest(service, { email: other.email, password: PASSWORD }, from(newAddress()))).status).toBe(200);
  });

  it(`per address: after ${PER_ADDRESS} failures for any accounts, the address is refused; other addresses sign in`, async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    const address = newAddress();
    for (let i = 1; i <= PER_ADDRESS; i += 1) {
      const res = await signInRequest(service, { email: uniqueEmail(), password: PASSWORD }, from(address));
      expect([i, res.status]).toEqual([i, 401]);
    }
    expectThrottled(await signInRequest(service, { email: someone.email, password: PASSWORD }, from(address)), 'address');
    expect((await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress()))).status).toBe(200);
  });

  it("a right password forgets the account's earlier failures", async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    for (let round = 0; round < 2; round += 1) {
      for (let i = 1; i < PER_ACCOUNT; i += 1) expect((await signInRequest(service, { email: someone.email, password: 'wrong password' }, from(newAddress()))).status).toBe(401);
      expect((await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress()))).status).toBe(200);
    }
  });
});

describe('password reset by email', () => {
  it('mails a one-time link; the new password works, the old one and every session do not; the link is used once', async () => {
    const someone = await member(service, (await onboard(service)).id, 'developer');
    const requested = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: someone.email.toUpperCase() } });
    expect([requested.status, requested.body]).toEqual([202, { requested: true }]);
    const link = linkIn(await latestMailTo(someone.email, /Reset/));
    expect(link).toContain('/merchant/reset-password?token=');

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Choose a new password for ${someone.email}.`);

    const token = tokenOf(link);
    const newPassword = 'a brand new passphrase';
    const reset = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body: { token, password: newPassword } });
    expect([reset.status, reset.body]).toEqual([200, { password_reset: true }]);

    expect((await asMember(service, someone, 'GET', '/me')).status).toBe(401);
    expect((await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress()))).status).toBe(401);
    expect((await signInRequest(service, { email: someone.email, password: newPassword }, from(newAddress()))).status).toBe(200);

    const again = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body: { token, password: 'yet another passphrase' } });
    expect([again.status, again.body]).toEqual([422, { error: 'Reset link not valid.', hint: expect.any(String), request_id: expect.any(String) }]);
  });

  it(`mails one person at most ${MAX_PASSWORD_RESET_MAILS_PER_HOUR} links an hour, answering every request the same`, async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    for (let i = 0; i <= MAX_PASSWORD_RESET_MAILS_PER_HOUR; i += 1) {
      const res = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: someone.email } });
      expect([i, res.status, res.body]).toEqual([i, 202, { requested: true }]);
    }
    await waitFor(async () => (await countMailsTo(someone.email, /Reset/)) >= MAX_PASSWORD_RESET_MAILS_PER_HOUR, 10_000, 'the reset mails');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await countMailsTo(someone.email, /Reset/)).toBe(MAX_PASSWORD_RESET_MAILS_PER_HOUR);
  });

  it('answers an unknown email the same, and mails nothing', async () => {
    const email = uniqueEmail('nobody');
    const requested = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email } });
    expect([requested.status, requested.body]).toEqual([202, { requested: true }]);
    await expect(latestMailTo(email, undefined, 500)).rejects.toThrow(/no mail/);
  });
});

describe('authenticator apps (TOTP)', () => {
  it('a signed-in person enrols (start, confirm with a code); from then on sign-in needs a right code', async () => {
    const someone = await member(service, (await onboard(service)).id, 'reviewer');
    const started = await asMember(service, someone, 'POST', '/me/totp');
    expect(started.status).toBe(201);
    expect(started.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]+$/), otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//), qr_code: expect.stringMatching(/^data:image\/png;base64,/) });
    expect((await asMember(service, someone, 'POST', '/me/totp/confirm', { body: { code: '000000' } })).status).toBe(422);
    const confirmed = await asMember(service, someone, 'POST', '/me/totp/confirm', { body: { code: currentTotpCode(started.body.secret) } });
    expect([confirmed.status, confirmed.body.totp_enabled]).toEqual([200, true]);

    const withoutCode = await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress()));
    expect([withoutCode.status, withoutCode.body.error]).toEqual([401, 'Authenticator code required.']);
    const wrongCode = await signInRequest(service, { email: someone.email, password: PASSWORD, totp_code: '000000' }, from(newAddress()));
    expect(wrongCode.status).toBe(401);
    // The confirmation spent the current code (a code works once): the next step's signs in.
    await signIn(service, someone.email, PASSWORD, { totp_code: currentTotpCode(started.body.secret, 1) });
  });

  it('an owner of a production account must enrol before signing in: on the invitation page, or from a reset link', async () => {
    const merchant = await onboard(service, { environment: 'production' });
    // Enrolled on the invitation page.
    const invited = await adminInvite(service, merchant.id, uniqueEmail('owner'), 'owner');
    const token = tokenOf(invited.body.accept_url);
    const enrolment = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/totp', { body: { token } });
    expect(enrolment.status).toBe(201);
    const accepted = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password: PASSWORD, totp_code: currentTotpCode(enrolment.body.secret) } });
    expect([accepted.status, accepted.body.user.totp_enabled]).toEqual([201, true]);
    const owner = await signIn(service, invited.body.email, PASSWORD, { totp_code: currentTotpCode(enrolment.body.secret, 1) });
    expect(owner.merchant.environment).toBe('production');

    // Not enrolled: refused with a hint, until enrolled from a reset link.
    const second = await adminInvite(service, merchant.id, uniqueEmail('owner'), 'owner');
    await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(second.body.accept_url), password: PASSWORD } });
    const refused = await signInRequest(service, { email: second.body.email, password: PASSWORD }, from(newAddress()));
    expect([refused.status, refused.body]).toEqual([403, { error: 'Owners of production accounts sign in with an authenticator app.', hint: expect.stringContaining('password reset'), request_id: expect.any(String) }]);
    await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: second.body.email } });
    const resetToken = tokenOf(linkIn(await latestMailTo(second.body.email, /Reset/)));
    const resetEnrolment = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/totp', { body: { token: resetToken } });
    expect(resetEnrolment.status).toBe(201);
    const reset = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body: { token: resetToken, password: PASSWORD, totp_code: currentTotpCode(resetEnrolment.body.secret) } });
    expect(reset.status).toBe(200);
    await signIn(service, second.body.email, PASSWORD, { totp_code: currentTotpCode(resetEnrolment.body.secret, 1) });

    // Other roles of a production account need no authenticator.
    await member(service, merchant.id, 'viewer');
  });
});
