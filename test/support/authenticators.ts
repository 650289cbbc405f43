import { currentTotpCode } from '../../src/identity/secrets';
import { waitFor } from './fixtures';
import type { Service } from './harness';
import { request } from './http';
import { countMailsTo, latestMailTo, linkIn } from './mailpit';
import { adminInvite, PASSWORD, signIn, tokenOf, uniqueEmail, type SignedIn } from './merchant-accounts';

/** A merchant's person with an authenticator: its secret (tests act as the app) and the recovery codes shown at enrolment. */
export interface Enrolled extends SignedIn {
  secret: string;
  recoveryCodes: string[];
}

/**
 * A code works once per step, and a test cannot wait 30 seconds for the next: this forgets the
 * person's spent step, as if the next step had come.
 */
export async function letNextCodeCome(service: Service, userId: string): Promise<void> {
  await service.deps.db('people').where({ id: userId }).update({ totp_last_step: null });
}

/** A person of the merchant with the role who accepted the invitation with an authenticator, signed in with its next code. */
export async function enrolledMember(service: Service, merchantId: string, role: string): Promise<Enrolled> {
  const email = uniqueEmail(role);
  const invited = await adminInvite(service, merchantId, email, role);
  const token = tokenOf(invited.body.accept_url);
  const enrolment = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/totp', { body: { token } });
  const secret = enrolment.body.secret as string;
  const accepted = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password: PASSWORD, totp_code: currentTotpCode(secret) } });
  if (accepted.status !== 201) throw new Error(`acceptance failed: ${accepted.status} ${accepted.text}`);
  const signedIn = await signIn(service, email, PASSWORD, { totp_code: currentTotpCode(secret, 1) });
  return { ...signedIn, secret, recoveryCodes: accepted.body.recovery_codes };
}

/** Asks for a reset link for the email and answers its token once the new mail has arrived. */
export async function resetToken(service: Service, email: string): Promise<string> {
  const before = await countMailsTo(email, /Reset/);
  const requested = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email } });
  if (requested.status !== 202) throw new Error(`reset request failed: ${requested.status}`);
  await waitFor(async () => (await countMailsTo(email, /Reset/)) > before, 10_000, 'the reset mail');
  return tokenOf(linkIn(await latestMailTo(email, /Reset/)));
}

export function completeReset(service: Service, body: Record<string, unknown>) {
  return request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body });
}

/** The link of the newest authenticator recovery mail to the email. */
export async function recoveryToken(email: string): Promise<string> {
  return tokenOf(linkIn(await latestMailTo(email, /Recover/)));
}

/** Enrols a new authenticator from a recovery (or reset) link: answers the secret to act with. */
export async function enrolFromLink(service: Service, token: string): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/totp', { body: { token } });
  if (res.status !== 201) throw new Error(`enrolment from the link failed: ${res.status} ${res.text}`);
  return res.body.secret as string;
}

