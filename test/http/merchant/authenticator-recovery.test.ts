import { currentTotpCode } from '../../../src/identity/secrets';
import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';
import { completeReset, enrolFromLink, enrolledMember, letNextCodeCome, recoveryToken, resetToken } from '../../support/authenticators';
import { asMember, errorWithHint, member, PASSWORD, signIn, signInRequest } from '../../support/merchant-accounts';
import { asOperator, operator, operatorSignInRequest, randomAddress } from '../../support/operators';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
});
afterAll(async () => {
  await service.stop();
});

const NEW_PASSWORD = 'a brand new passphrase';
const from = () => ({ 'x-forwarded-for': randomAddress() });
const signInWith = (email: string, body: Record<string, unknown>) => signInRequest(service, { email, ...body }, from());

describe('a reset link alone does not replace an enrolled authenticator', () => {
  it('refuses to enrol a new one from a plain reset link, and to complete the reset without a code of the current one', async () => {
    const owner = await enrolledMember(service, (await onboard(service, { environment: 'production' })).id, 'owner');
    const token = await resetToken(service, owner.email);

    const attackerEnrolment = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/totp', { body: { token } });
    expect([attackerEnrolment.status, attackerEnrolment.body]).toEqual([422, { ...errorWithHint, error: 'A password reset keeps your authenticator.' }]);
    const withoutCode = await completeReset(service, { token, password: NEW_PASSWORD });
    expect([withoutCode.status, withoutCode.body]).toEqual([422, { ...errorWithHint, error: 'Authenticator code required.' }]);
    const wrongCode = await completeReset(service, { token, password: NEW_PASSWORD, totp_code: currentTotpCode(owner.secret) === '000000' ? '111111' : '000000' });
    expect([wrongCode.status, wrongCode.body.error]).toEqual([422, 'Authenticator code is wrong.']);

    // Nothing changed: the real person's password and authenticator still sign in.
    await letNextCodeCome(service, owner.user.id);
    expect((await signInWith(owner.email, { password: PASSWORD, totp_code: currentTotpCode(owner.secret) })).status).toBe(200);
    expect((await signInWith(owner.email, { password: NEW_PASSWORD, totp_code: currentTotpCode(owner.secret, 1) })).status).toBe(401);
  });

  it('completes with a current code of the authenticator, which stays: every session ends', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'developer');
    const token = await resetToken(service, person.email);
    await letNextCodeCome(service, person.user.id);
    const reset = await completeReset(service, { token, password: NEW_PASSWORD, totp_code: currentTotpCode(person.secret) });
    expect([reset.status, reset.body]).toEqual([200, { password_reset: true }]);
    expect((await asMember(service, person, 'GET', '/me')).status).toBe(401);
    expect((await signInWith(person.email, { password: NEW_PASSWORD, totp_code: currentTotpCode(person.secret, 1) })).status).toBe(200);
  });

  it('completes with a recovery code instead, which is spent', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'viewer');
    const [code] = person.recoveryCodes;
    const reset = await completeReset(service, { token: await resetToken(service, person.email), password: NEW_PASSWORD, recovery_code: code });
    expect([reset.status, reset.body]).toEqual([200, { password_reset: true }]);
    const again = await completeReset(service, { token: await resetToken(service, person.email), password: 'yet another passphrase', recovery_code: code });
    expect([again.status, again.body.error]).toEqual([422, 'Recovery code is wrong or used.']);
  });

  it('ends every other reset link of the person: an older link fails once a newer one was used', async () => {
    const person = await member(service, (await onboard(service)).id, 'viewer');
    const older = await resetToken(service, person.email);
    const newer = await resetToken(service, person.email);
    expect((await completeReset(service, { token: newer, password: NEW_PASSWORD })).status).toBe(200);
    const stale = await completeReset(service, { token: older, password: 'yet another passphrase' });
    expect([stale.status, stale.body.error]).toEqual([422, 'Reset link not valid.']);
    await signIn(service, person.email, NEW_PASSWORD);
  });
});

describe('recovery codes', () => {
  it('ten are shown once at enrolment, stored hashed; each signs in once in place of a code', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'reviewer');
    expect(person.recoveryCodes).toHaveLength(10);
    expect(new Set(person.recoveryCodes).size).toBe(10);
    const stored = await service.deps.db('recovery_codes').where({ user_id: person.user.id });
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(person.recoveryCodes[0]!.replace('-', ''));

    const [code] = person.recoveryCodes;
    expect((await signInWith(person.email, { password: PASSWORD, recovery_code: code!.toUpperCase() })).status).toBe(200);
    const replay = await signInWith(person.email, { password: PASSWORD, recovery_code: code });
    expect([replay.status, replay.body]).toEqual([401, { ...errorWithHint, error: 'Recovery code is wrong or used.' }]);
    const audit = await service.deps.db('audit_log').where({ target: person.user.id, action: 'recovery_code.used' });
    expect(audit.map((row) => row.details)).toEqual([{ remaining: 9 }]);
  });

  it('a signed-in person regenerates them with a current code; the earlier set stops working', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'developer');
    const withoutCode = await asMember(service, person, 'POST', '/me/recovery-codes', { body: {} });
    expect([withoutCode.status, withoutCode.body.error]).toEqual([422, 'Authenticator code required.']);
    await letNextCodeCome(service, person.user.id);
    const renewed = await asMember(service, person, 'POST', '/me/recovery-codes', { body: { totp_code: currentTotpCode(person.secret) } });
    expect([renewed.status, renewed.body.recovery_codes.length]).toEqual([201, 10]);
    expect((await signInWith(person.email, { password: PASSWORD, recovery_code: person.recoveryCodes[1] })).status).toBe(401);
    expect((await signInWith(person.email, { password: PASSWORD, recovery_code: renewed.body.recovery_codes[0] })).status).toBe(200);
  });
});

describe('a signed-in person replaces their authenticator only with a code of it', () => {
  it('refuses the enrolment without a current code or recovery code; with one, the new authenticator replaces the old', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'viewer');
    const bare = await asMember(service, person, 'POST', '/me/totp');
    expect([bare.status, bare.body.error]).toEqual([422, 'Authenticator code required.']);
    const wrong = await asMember(service, person, 'POST', '/me/totp', { body: { recovery_code: 'aaaaa-bbbbb' } });
    expect([wrong.status, wrong.body.error]).toEqual([422, 'Recovery code is wrong or used.']);

    const started = await asMember(service, person, 'POST', '/me/totp', { body: { recovery_code: person.recoveryCodes[0] } });
    expect(started.status).toBe(201);
    await letNextCodeCome(service, person.user.id);
    const confirmed = await asMember(service, person, 'POST', '/me/totp/confirm', { body: { code: currentTotpCode(started.body.secret) } });
    expect([confirmed.status, confirmed.body.totp_enabled, confirmed.body.recovery_codes.length]).toEqual([200, true, 10]);
    expect((await signInWith(person.email, { password: PASSWORD, totp_code: currentTotpCode(person.secret, 1) })).status).toBe(401);
    expect((await signInWith(person.email, { password: PASSWORD, totp_code: currentTotpCode(started.body.secret, 1) })).status).toBe(200);
  });
});

describe("an operator's own authenticator, signed in", () => {
  it('is replaced only with a current code, after the CSRF check; new recovery codes take a code too and end the earlier set', async () => {
    const person = await operator(service, 'operator_viewer');
    const noCsrf = await asOperator(service, person, 'POST', '/dashboard/session/totp', { body: { totp_code: '123456' }, csrf: false });
    expect(noCsrf.status).toBe(401);
    const bare = await asOperator(service, person, 'POST', '/dashboard/session/totp', { body: {} });
    expect([bare.status, bare.body.error]).toEqual([422, 'Authenticator code required.']);

    await letNextCodeCome(service, person.user.id);
    const started = await asOperator(service, person, 'POST', '/dashboard/session/totp', { body: { totp_code: currentTotpCode(person.secret) } });
    expect(started.status).toBe(201);
    await letNextCodeCome(service, person.user.id);
    const confirmed = await asOperator(service, person, 'POST', '/dashboard/session/totp/confirm', { body: { code: currentTotpCode(started.body.secret) } });
    expect([confirmed.status, confirmed.body.totp_enabled, confirmed.body.recovery_codes.length]).toEqual([200, true, 10]);
    await letNextCodeCome(service, person.user.id);
    expect((await operatorSignInRequest(service, { email: person.email, password: PASSWORD, totp_code: currentTotpCode(person.secret) })).status).toBe(401);

    await letNextCodeCome(service, person.user.id);
    const renewed = await asOperator(service, person, 'POST', '/dashboard/session/recovery-codes', { body: { totp_code: currentTotpCode(started.body.secret) } });
    expect([renewed.status, renewed.body.recovery_codes.length]).toEqual([201, 10]);
    expect((await operatorSignInRequest(service, { email: person.email, password: PASSWORD, recovery_code: confirmed.body.recovery_codes[0] })).status).toBe(401);
    expect((await operatorSignInRequest(service, { email: person.email, password: PASSWORD, recovery_code: renewed.body.recovery_codes[0] })).status).toBe(200);
    const audited = await service.deps.db('audit_log').where({ target: person.user.id }).pluck('action');
    expect(audited).toEqual(expect.arrayContaining(['totp.enabled', 'recovery_codes.regenerated']));
  });
});

describe('a recovery another person starts', () => {
  it("an owner recovers a person's authenticator: audited, their sessions end, and the mailed link enrols a new one", async () => {
    const merchant = await onboard(service, { environment: 'production' });
    const owner = await enrolledMember(service, merchant.id, 'owner');
    const person = await enrolledMember(service, merchant.id, 'developer');
    const developer = await member(service, merchant.id, 'developer');

    expect((await asMember(service, developer, 'POST', `/team/${person.user.id}/authenticator-recovery`)).status).toBe(403);
    const own = await asMember(service, owner, 'POST', `/team/${owner.user.id}/authenticator-recovery`);
    expect([own.status, own.body.error]).toEqual([422, 'You cannot recover your own authenticator.']);
    const stranger = await member(service, (await onboard(service)).id, 'viewer');
    expect((await asMember(service, owner, 'POST', `/team/${stranger.user.id}/authenticator-recovery`)).status).toBe(404);

    const started = await asMember(service, owner, 'POST', `/team/${person.user.id}/authenticator-recovery`);
    expect([started.status, started.body]).toEqual([201, { id: person.user.id, recovery_started: true, expires_at: expect.any(String) }]);
    expect((await asMember(service, person, 'GET', '/me')).status).toBe(401);
    const audit = await asMember(service, owner, 'GET', '/audit-log');
    expect(audit.body.results[0]).toMatchObject({ actor: owner.user.id, action: 'authenticator.recovery_started', target: person.user.id, details: { email: person.email } });

    const token = await recoveryToken(person.email);
    const secret = await enrolFromLink(service, token);
    const withoutNewCode = await completeReset(service, { token, password: NEW_PASSWORD });
    expect([withoutNewCode.status, withoutNewCode.body.error]).toEqual([422, 'Authenticator required.']);
    await letNextCodeCome(service, person.user.id);
    const done = await completeReset(service, { token, password: NEW_PASSWORD, totp_code: currentTotpCode(secret) });
    expect([done.status, done.body.recovery_codes.length]).toEqual([200, 10]);
    expect((await signInWith(person.email, { password: NEW_PASSWORD, totp_code: currentTotpCode(person.secret, 1) })).status).toBe(401);
    expect((await signInWith(person.email, { password: NEW_PASSWORD, totp_code: currentTotpCode(secret, 1) })).status).toBe(200);
    expect((await completeReset(service, { token, password: 'yet another passphrase', totp_code: currentTotpCode(secret, 1) })).status).toBe(422);
  });

  it("an operator_admin recovers an operator's authenticator; a viewer may not", async () => {
    const admin = await operator(service, 'operator_admin');
    const viewer = await operator(service, 'operator_viewer');
    const path = (id: string) => `/admin/v1/operators/${id}/authenticator-recovery`;

    expect((await asOperator(service, viewer, 'POST', path(admin.user.id))).status).toBe(403);
    expect((await asOperator(service, admin, 'POST', path('opr_unknown'))).status).toBe(404);
    const started = await asOperator(service, admin, 'POST', path(viewer.user.id));
    expect([started.status, started.body.recovery_started]).toEqual([201, true]);
    expect((await asOperator(service, viewer, 'GET', '/admin/v1/merchants')).status).toBe(401);
    const audit = await service.deps.db('audit_log').where({ target: viewer.user.id, action: 'authenticator.recovery_started' });
    expect(audit.map((row) => [row.actor, row.actor_email, row.merchant_id])).toEqual([[admin.user.id, admin.email, null]]);

    const token = await recoveryToken(viewer.email);
    const secret = await enrolFromLink(service, token);
    await letNextCodeCome(service, viewer.user.id);
    expect((await completeReset(service, { token, password: NEW_PASSWORD, totp_code: currentTotpCode(secret) })).status).toBe(200);
    expect((await operatorSignInRequest(service, { email: viewer.email, password: NEW_PASSWORD, totp_code: currentTotpCode(viewer.secret, 1) })).status).toBe(401);
    expect((await operatorSignInRequest(service, { email: viewer.email, password: NEW_PASSWORD, totp_code: currentTotpCode(secret, 1) })).status).toBe(200);
  });
});
