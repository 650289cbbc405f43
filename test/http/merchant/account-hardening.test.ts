import { currentTotpCode } from '../../../src/identity/secrets';
import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';
import { completeReset, enrolledMember, letNextCodeCome, resetToken } from '../../support/authenticators';
import { adminInvite, asMember, errorWithHint, member, signInRequest, tokenOf, uniqueEmail } from '../../support/merchant-accounts';
import { asOperator, operator } from '../../support/operators';

const MERCHANT_IDLE_MINUTES = 120;
const OPERATOR_IDLE_MINUTES = 30;

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1, env: { MERCHANT_SESSION_IDLE_MINUTES: String(MERCHANT_IDLE_MINUTES), OPERATOR_SESSION_IDLE_MINUTES: String(OPERATOR_IDLE_MINUTES) } });
});
afterAll(async () => {
  await service.stop();
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const lastSeenOf = async (userId: string) => (await service.deps.db('sessions').where({ user_id: userId }).whereNull('revoked_at').first()).last_seen_at as Date;

describe('a person promoted to owner of a production account enrols an authenticator before acting as owner', () => {
  it('answers 403 with a hint to enrol on every owner call, says so on GET /me, and lets them act once enrolled', async () => {
    const merchant = await onboard(service, { environment: 'production' });
    const owner = await enrolledMember(service, merchant.id, 'owner');
    const promoted = await member(service, merchant.id, 'developer');
    expect((await asMember(service, owner, 'PATCH', `/team/${promoted.user.id}`, { body: { role: 'owner' } })).status).toBe(200);

    const enrolFirst = { ...errorWithHint, error: 'Enrol an authenticator first.', hint: expect.stringContaining('/me/totp') };
    const key = await asMember(service, promoted, 'POST', '/developers/api_keys', { body: {} });
    expect([key.status, key.body]).toEqual([403, enrolFirst]);
    const invite = await asMember(service, promoted, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'owner' } });
    expect([invite.status, invite.body]).toEqual([403, enrolFirst]);
    expect((await asMember(service, promoted, 'GET', '/team')).status).toBe(403);
    const me = await asMember(service, promoted, 'GET', '/me');
    expect([me.status, me.body.user.role, me.body.totp_enrolment_required]).toEqual([200, 'owner', true]);

    const started = await asMember(service, promoted, 'POST', '/me/totp');
    expect(started.status).toBe(201);
    const confirmed = await asMember(service, promoted, 'POST', '/me/totp/confirm', { body: { code: currentTotpCode(started.body.secret) } });
    expect(confirmed.status).toBe(200);
    expect((await asMember(service, promoted, 'GET', '/me')).body.totp_enrolment_required).toBe(false);
    expect((await asMember(service, promoted, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'viewer' } })).status).toBe(201);
  });
});

describe('passwords that are easy to guess are refused wherever a password is chosen', () => {
  const tooEasy = { ...errorWithHint, error: 'Password is too easy to guess.' };

  it.each(['aaaaaaaaaaaa', 'password1234', 'qwertyuiop123'])('%s: 422 at invitation acceptance and at a reset', async (weak) => {
    const merchant = await onboard(service);
    const invited = await adminInvite(service, merchant.id, uniqueEmail(), 'viewer');
    const accepted = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: weak } });
    expect([accepted.status, accepted.body]).toEqual([422, tooEasy]);

    const person = await member(service, merchant.id, 'viewer');
    const reset = await completeReset(service, { token: await resetToken(service, person.email), password: weak });
    expect([reset.status, reset.body]).toEqual([422, tooEasy]);
  });

  it('keeps the 12-character minimum beside it', async () => {
    const invited = await adminInvite(service, (await onboard(service)).id, uniqueEmail(), 'viewer');
    const short = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: 'Xq7#mP2$vL9' } });
    expect([short.status, short.body.error]).toEqual([422, 'Request body is invalid: password: must be at least 12 characters.']);
  });
});

describe('sessions end when idle', () => {
  it(`a merchant session unused for ${MERCHANT_IDLE_MINUTES} minutes ends; use keeps it alive, written at most once a minute`, async () => {
    const person = await member(service, (await onboard(service)).id, 'viewer');
    const fresh = await lastSeenOf(person.user.id);
    expect((await asMember(service, person, 'GET', '/me')).status).toBe(200);
    expect(await lastSeenOf(person.user.id)).toEqual(fresh);

    await service.deps.db('sessions').where({ user_id: person.user.id }).update({ last_seen_at: minutesAgo(MERCHANT_IDLE_MINUTES - 1) });
    expect((await asMember(service, person, 'GET', '/me')).status).toBe(200);
    const touched = await lastSeenOf(person.user.id);
    expect(Date.now() - touched.getTime()).toBeLessThan(10_000);

    await service.deps.db('sessions').where({ user_id: person.user.id }).update({ last_seen_at: minutesAgo(MERCHANT_IDLE_MINUTES + 1) });
    const idle = await asMember(service, person, 'GET', '/me');
    expect([idle.status, idle.body.error]).toEqual([401, 'Sign in first.']);
  });

  it(`an operator session unused for ${OPERATOR_IDLE_MINUTES} minutes ends`, async () => {
    const who = await operator(service, 'operator_viewer');
    await service.deps.db('sessions').where({ user_id: who.user.id }).update({ last_seen_at: minutesAgo(OPERATOR_IDLE_MINUTES - 1) });
    expect((await asOperator(service, who, 'GET', '/admin/v1/merchants')).status).toBe(200);
    await service.deps.db('sessions').where({ user_id: who.user.id }).update({ last_seen_at: minutesAgo(OPERATOR_IDLE_MINUTES + 1) });
    expect((await asOperator(service, who, 'GET', '/admin/v1/merchants')).status).toBe(401);
  });
});

describe('a link token is looked up before any password is hashed', () => {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  async function timed(call: () => Promise<unknown>): Promise<number> {
    const started = process.hrtime.bigint();
    await call();
    return Number(process.hrtime.bigint() - started) / 1e6;
  }

  it('answers an unknown token 422 in far less time than one argon2 hash takes', async () => {
    const unknownToken: number[] = [];
    const oneHash: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      // An unknown email at sign-in verifies against a decoy hash: one argon2 run, the yardstick.
      oneHash.push(await timed(() => signInRequest(service, { email: uniqueEmail('nobody'), password: 'a long enough password' }, { 'x-forwarded-for': `198.18.0.${i + 1}` })));
      unknownToken.push(await timed(async () => expect((await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: `unknown-${i}`, password: 'a long enough password' } })).status).toBe(422)));
      unknownToken.push(await timed(async () => expect((await completeReset(service, { token: `unknown-${i}`, password: 'a long enough password' })).status).toBe(422)));
    }
    expect(median(unknownToken)).toBeLessThan(median(oneHash) / 2);
  });
});

describe('an enrolled person completes a reset only with their authenticator', () => {
  it('counts wrong codes on a reset link as failed sign-ins of the account', async () => {
    const person = await enrolledMember(service, (await onboard(service)).id, 'viewer');
    const token = await resetToken(service, person.email);
    await letNextCodeCome(service, person.user.id);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await completeReset(service, { token, password: 'a brand new passphrase', totp_code: String(100000 + i) })).status);
    expect(statuses.slice(0, 10).every((status) => status === 422)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
