import { currentTotpCode } from '../../../src/identity/secrets';
import { MAX_PASSWORD_RESET_MAILS_PER_HOUR } from '../../../src/identity/merchant-roles';
import { startService, type Service } from '../../support/harness';
import { waitFor } from '../../support/fixtures';
import { onboard, request } from '../../support/http';
import { countMailsTo } from '../../support/mailpit';
import { asMember, member, PASSWORD, signInRequest, uniqueEmail, type SignedIn } from '../../support/merchant-accounts';

const PER_ACCOUNT = 10;
const PER_ADDRESS = 20;
const BURST = 30;

let service: Service;
beforeAll(async () => {
  service = await startService({
    worker: false,
    replicas: 1,
    env: {
      MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT),
      MERCHANT_SIGN_IN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      MERCHANT_SIGN_IN_FAILURE_WINDOW_SECONDS: '120',
    },
  });
});
afterAll(async () => {
  await service.stop();
});

let lastAddress = 0;
const newAddress = () => `192.0.2.${++lastAddress}`;
const from = (address: string) => ({ 'x-forwarded-for': address });

/** How many of a burst's sign-ins got each status. */
async function burst(attempts: Array<() => Promise<{ status: number }>>): Promise<Record<number, number>> {
  const statuses = (await Promise.all(attempts.map((attempt) => attempt()))).map((res) => res.status);
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function failSequentially(times: number, attempt: (i: number) => Promise<{ status: number }>): Promise<void> {
  for (let i = 0; i < times; i += 1) expect([i, (await attempt(i)).status]).toEqual([i, 401]);
}

async function enrolledMember(): Promise<{ person: SignedIn; secret: string }> {
  const person = await member(service, (await onboard(service)).id, 'developer');
  const started = await asMember(service, person, 'POST', '/me/totp');
  expect((await asMember(service, person, 'POST', '/me/totp/confirm', { body: { code: currentTotpCode(started.body.secret) } })).status).toBe(200);
  return { person, secret: started.body.secret };
}

describe('concurrent guesses get no more checks than the limit', () => {
  it(`per account: after ${PER_ACCOUNT - 1} failures, ${BURST} concurrent wrong passwords get one check; the right password right after is 429`, async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    await failSequentially(PER_ACCOUNT - 1, (i) => signInRequest(service, { email: someone.email, password: `wrong ${i}` }, from(newAddress())));
    const counts = await burst(Array.from({ length: BURST }, (_, i) => () => signInRequest(service, { email: someone.email, password: `burst ${i}` }, from(newAddress()))));
    expect(counts).toEqual({ 401: 1, 429: BURST - 1 });
    const right = await signInRequest(service, { email: someone.email, password: PASSWORD }, from(newAddress()));
    expect([right.status, right.body.error]).toEqual([429, 'Too many failed sign-ins for this account.']);
  });

  it(`per address: after ${PER_ADDRESS - 1} failures, ${BURST} concurrent guesses for other accounts get one check`, async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    const address = newAddress();
    await failSequentially(PER_ADDRESS - 1, () => signInRequest(service, { email: uniqueEmail(), password: PASSWORD }, from(address)));
    const counts = await burst(Array.from({ length: BURST }, () => () => signInRequest(service, { email: uniqueEmail(), password: PASSWORD }, from(address))));
    expect(counts).toEqual({ 401: 1, 429: BURST - 1 });
    const right = await signInRequest(service, { email: someone.email, password: PASSWORD }, from(address));
    expect([right.status, right.body.error]).toEqual([429, 'Too many failed sign-ins for this address.']);
  });

  it(`authenticator codes: with the password known, after ${PER_ACCOUNT - 1} wrong codes, ${BURST} concurrent codes get one check; the right code after is 429`, async () => {
    const { person, secret } = await enrolledMember();
    await failSequentially(PER_ACCOUNT - 1, () => signInRequest(service, { email: person.email, password: PASSWORD, totp_code: '000000' }, from(newAddress())));
    const codes = Array.from({ length: BURST }, (_, i) => String(100_000 + i));
    const counts = await burst(codes.map((code) => () => signInRequest(service, { email: person.email, password: PASSWORD, totp_code: code }, from(newAddress()))));
    expect(counts).toEqual({ 401: 1, 429: BURST - 1 });
    const right = await signInRequest(service, { email: person.email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) }, from(newAddress()));
    expect([right.status, right.body.error]).toEqual([429, 'Too many failed sign-ins for this account.']);
  });

  it('a right password missing its authenticator code counts as no failure', async () => {
    const { person, secret } = await enrolledMember();
    for (let i = 0; i < PER_ACCOUNT + 2; i += 1) {
      expect((await signInRequest(service, { email: person.email, password: PASSWORD }, from(newAddress()))).body.error).toBe('Authenticator code required.');
    }
    expect((await signInRequest(service, { email: person.email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) }, from(newAddress()))).status).toBe(200);
  });
});

describe('the reset mail limit holds against a burst', () => {
  it.each([10, 20])(`%i concurrent reset requests for one person send at most ${MAX_PASSWORD_RESET_MAILS_PER_HOUR} mails`, async (requests) => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    const answers = await Promise.all(Array.from({ length: requests }, () => request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: someone.email }, headers: from(newAddress()) })));
    expect(answers.map((res) => res.status)).toEqual(Array(requests).fill(202));
    const queued = () => service.deps.db('outgoing_mails').where({ recipient: someone.email }).where('subject', 'like', 'Reset%').count<Array<{ count: string }>>('id as count');
    await waitFor(async () => Number((await queued())[0]!.count) >= MAX_PASSWORD_RESET_MAILS_PER_HOUR, 10_000, 'the reset mails');
    await waitFor(async () => (await countMailsTo(someone.email, /Reset/)) >= MAX_PASSWORD_RESET_MAILS_PER_HOUR, 10_000, 'the reset mails in Mailpit');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(Number((await queued())[0]!.count)).toBe(MAX_PASSWORD_RESET_MAILS_PER_HOUR);
    expect(await countMailsTo(someone.email, /Reset/)).toBe(MAX_PASSWORD_RESET_MAILS_PER_HOUR);
  });
});
