// The merchant dashboard's API (operator spec, section 7) and the pages its mails link to, in the OpenAPI document.
import { z } from 'zod';
import { ADMIN_TOKEN_THROTTLED, AdminAuth, DashboardSession, MerchantSessionAuth, operation, page, pathId, TAGS } from '../http/openapi-operation';
import { PageQuery } from '../readback/schemas';
import {
  AcceptInvitationBody, AuditEntry, AuthenticatorProofBody, AuthenticatorRecovery, EnrolledUser, Invitation, InvitationBody, MerchantUser, OpenInvitation, PasswordResetBody, PasswordResetRequestBody, RecoveryCodes, RoleChangeBody, SignedIn, SignInBody, TokenBody, TotpConfirmBody, TotpEnrolment,
} from './schemas';

const tag = TAGS.merchantDashboard;
const session = [{ [MerchantSessionAuth.name]: [] }];
const signedIn = { 401: 'No session, a revoked one (signed out, person removed, password reset), or a change without X-CSRF-Token.' };
const owners = { ...signedIn, 403: 'Beyond the role (only owners manage the team and read the audit log), or an owner of a production account who has not enrolled an authenticator yet.' };
/** The per-address limit in front of every account route without a session (ACCOUNT_ROUTE_MAX_REQUESTS_PER_ADDRESS). */
const ACCOUNT_ROUTES_LIMITED = 'Too many requests to the account routes from the address (Retry-After seconds).';
const link = { 422: 'Invalid input, or a link that is used, expired or unknown.', 429: ACCOUNT_ROUTES_LIMITED };
const memberParams = pathId('usr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw');

operation({
  method: 'post', path: '/admin/v1/merchants/{id}/invitations', id: 'adminInviteMerchantUser', tag: TAGS.admin, security: [{ [AdminAuth.name]: [] }, { [DashboardSession.name]: [] }],
  summary: 'Invite a person to a merchant: the link is mailed, valid 7 days, used once', params: pathId('mer_2bN8kQ8sLm3Xa7Pc1Rt5VbNw'), body: InvitationBody,
  responses: { 201: ['The invitation', Invitation] }, errors: { 401: 'Missing or wrong admin token (or dashboard session / CSRF header).', 429: ADMIN_TOKEN_THROTTLED, 404: 'No such merchant.', 422: 'Invalid input, or the email already has an account.' },
});
const adminMerchantInvitation = { security: [{ [AdminAuth.name]: [] }, { [DashboardSession.name]: [] }], tag: TAGS.admin };
const adminErrors = { 401: 'Missing or wrong admin token (or dashboard session / CSRF header).', 429: ADMIN_TOKEN_THROTTLED };
operation({
  ...adminMerchantInvitation, method: 'get', path: '/admin/v1/merchants/{id}/invitations', id: 'adminListMerchantInvitations', summary: "A merchant's open invitations, newest first, each naming who sent it",
  params: pathId('mer_2bN8kQ8sLm3Xa7Pc1Rt5VbNw'), query: PageQuery, responses: { 200: ['A page of open invitations', page(OpenInvitation)] }, errors: { ...adminErrors, 404: 'No such merchant, or starting_after is not an invitation of this list.' },
});
operation({
  ...adminMerchantInvitation, method: 'delete', path: '/admin/v1/merchants/{id}/invitations/{invitationId}', id: 'adminRevokeMerchantInvitation', summary: "Revoke a merchant's open invitation: its link stops working at once",
  params: z.object({ id: z.string().openapi({ description: 'The merchant.', example: 'mer_2bN8kQ8sLm3Xa7Pc1Rt5VbNw' }), invitationId: z.string().openapi({ description: 'The open invitation to revoke.', example: 'inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw' }) }),
  responses: { 200: ['Revoked', z.object({ id: z.string(), revoked: z.literal(true).openapi({ description: 'Always true.' }) })] }, errors: { ...adminErrors, 403: 'A dashboard session whose role may not change merchants.', 404: 'No such merchant, or no such open invitation (accepted, revoked, expired or unknown).' },
});
operation({
  method: 'post', path: '/merchant/v1/session', id: 'merchantSignIn', tag, summary: 'Sign in: sets the session cookie', body: SignInBody,
  responses: { 200: ['Signed in (Set-Cookie: merchant_session)', SignedIn] },
  errors: { 401: 'Wrong email, password, authenticator code or recovery code (or neither code came); or the account is one of the operator\'s people, whose hint names /dashboard/login.', 403: 'An owner of a production account without an authenticator app.', 422: 'Invalid input.', 429: 'Too many failed sign-ins for the account or from the address, or too many account requests from the address (Retry-After seconds).' },
});
operation({ method: 'delete', path: '/merchant/v1/session', id: 'merchantSignOut', tag, security: session, summary: 'Sign out: the session is revoked on the server', responses: { 200: ['Signed out', z.object({ signed_out: z.literal(true) })] }, errors: signedIn });
operation({ method: 'post', path: '/merchant/v1/invitations/accept', id: 'merchantAcceptInvitation', tag, summary: "Accept an invitation: the person's account", body: AcceptInvitationBody, responses: { 201: ['The account; with an authenticator enrolled, its recovery codes, shown this once', z.object({ user: MerchantUser, recovery_codes: RecoveryCodes.shape.recovery_codes.optional() })] }, errors: { 422: 'Invalid input, a password too easy to guess, or a link that is used, expired or unknown.', 429: ACCOUNT_ROUTES_LIMITED } });
operation({ method: 'post', path: '/merchant/v1/invitations/totp', id: 'merchantInvitationTotp', tag, summary: 'Start enrolling an authenticator app on the invitation page (confirmed by totp_code on acceptance)', body: TokenBody, responses: { 201: ['The secret to scan', TotpEnrolment] }, errors: link });
operation({ method: 'post', path: '/merchant/v1/password-resets', id: 'merchantRequestPasswordReset', tag, summary: 'Mail a one-time password reset link (answered the same whether the email has an account or not)', body: PasswordResetRequestBody, responses: { 202: ['Requested', z.object({ requested: z.literal(true).openapi({ description: 'Always true.' }) })] }, errors: { 422: 'Invalid input.', 429: ACCOUNT_ROUTES_LIMITED } });
operation({
  method: 'post', path: '/merchant/v1/password-resets/totp', id: 'merchantPasswordResetTotp', tag, summary: 'Start enrolling an authenticator app on the reset page (confirmed by totp_code with the new password)',
  description: 'Open to an authenticator recovery link, and to a plain reset link of a person without an authenticator; a plain reset link never replaces an enrolled one (422).', body: TokenBody, responses: { 201: ['The secret to scan', TotpEnrolment] }, errors: link,
});
operation({
  method: 'post', path: '/merchant/v1/password-resets/complete', id: 'merchantResetPassword', tag, summary: "Set a new password from the reset link: every session and every other reset link of the person end", body: PasswordResetBody,
  description: 'A person with an authenticator sends a current code of it (totp_code) or one of their recovery codes (recovery_code); guesses count as failed sign-ins of the account. An authenticator recovery link enrols the new authenticator instead (totp_code of the one started with POST /merchant/v1/password-resets/totp).',
  responses: { 200: ['Changed; with an authenticator enrolled on the page, its recovery codes, shown this once', z.object({ password_reset: z.literal(true).openapi({ description: 'Always true.' }), recovery_codes: RecoveryCodes.shape.recovery_codes.optional() })] },
  errors: { 422: 'Invalid input, a password too easy to guess, a missing or wrong code, or a link that is used, expired or unknown.', 429: 'Too many wrong codes for the account or from the address, or too many account requests from the address (Retry-After seconds).' },
});
operation({ method: 'get', path: '/merchant/v1/me', id: 'merchantMe', tag, security: session, summary: 'The signed-in person, their merchant and the CSRF token', responses: { 200: ['The session', SignedIn] }, errors: signedIn });
operation({
  method: 'post', path: '/merchant/v1/me/totp', id: 'merchantStartTotp', tag, security: session, summary: 'Start enrolling an authenticator app; replacing an enrolled one takes a current code of it or a recovery code', body: AuthenticatorProofBody,
  responses: { 201: ['The secret to scan', TotpEnrolment] }, errors: { ...signedIn, 422: 'An authenticator is enrolled and no code, or a wrong one, came.', 429: 'Too many wrong codes for the account or from the address (Retry-After seconds).' },
});
operation({ method: 'post', path: '/merchant/v1/me/totp/confirm', id: 'merchantConfirmTotp', tag, security: session, summary: 'Confirm the enrolment with a code: from then on sign-in needs a code; answers new recovery codes, shown this once', body: TotpConfirmBody, responses: { 200: ['The person and their recovery codes', EnrolledUser] }, errors: { ...signedIn, 422: 'No enrolment started, or a wrong code.' } });
operation({
  method: 'post', path: '/merchant/v1/me/recovery-codes', id: 'merchantRegenerateRecoveryCodes', tag, security: session, summary: 'A new set of recovery codes against a current authenticator code: the earlier set stops working', body: AuthenticatorProofBody,
  responses: { 201: ['The new codes, shown this once', RecoveryCodes] }, errors: { ...signedIn, 422: 'No authenticator enrolled, or a missing or wrong code.', 429: 'Too many wrong codes for the account or from the address (Retry-After seconds).' },
});
operation({ method: 'get', path: '/merchant/v1/team', id: 'merchantListTeam', tag, security: session, summary: "The account's people, in the order they joined (owners)", query: PageQuery, responses: { 200: ['A page of the team', page(MerchantUser)] }, errors: { ...owners, 404: 'starting_after is not a person of this team.' } });
operation({ method: 'post', path: '/merchant/v1/team/invitations', id: 'merchantInvite', tag, security: session, summary: 'Invite a person (owners): the link is mailed', body: InvitationBody, responses: { 201: ['The invitation', Invitation] }, errors: { ...owners, 422: 'Invalid input, or the email already has an account.' } });
operation({ method: 'get', path: '/merchant/v1/team/invitations', id: 'merchantListInvitations', tag, security: session, summary: "The account's open invitations, newest first, each naming who sent it (owners)", query: PageQuery, responses: { 200: ['A page of open invitations', page(OpenInvitation)] }, errors: { ...owners, 404: 'starting_after is not an open invitation of this account.' } });
operation({
  method: 'delete', path: '/merchant/v1/team/invitations/{id}', id: 'merchantRevokeInvitation', tag, security: session, summary: 'Revoke an open invitation (owners): its link stops working at once', params: pathId('inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw'),
  responses: { 200: ['Revoked', z.object({ id: z.string(), revoked: z.literal(true).openapi({ description: 'Always true.' }) })] }, errors: { ...owners, 404: 'No such open invitation in this account (accepted, revoked, expired, unknown or another account\'s).' },
});
operation({
  method: 'patch', path: '/merchant/v1/team/{id}', id: 'merchantChangeRole', tag, security: session, summary: "Change a person's role (owners); the account keeps at least one owner", params: memberParams, body: RoleChangeBody,
  responses: { 200: ['The person', MerchantUser] }, errors: { ...owners, 404: "No such person in this account's team.", 422: 'Invalid input, or the last owner.' },
});
operation({
  method: 'post', path: '/merchant/v1/team/{id}/authenticator-recovery', id: 'merchantRecoverAuthenticator', tag, security: session, params: memberParams,
  summary: "Start the recovery of a person's lost authenticator (owners): their sessions end, and a one-time link to enrol a new one is mailed to them; audited",
  responses: { 201: ['Started', AuthenticatorRecovery] }, errors: { ...owners, 404: "No such person in this account's team.", 422: 'Your own authenticator, or a person without one.' },
});
operation({
  method: 'delete', path: '/merchant/v1/team/{id}', id: 'merchantRemoveMember', tag, security: session, summary: 'Remove a person (owners): their sessions end at once', params: memberParams,
  responses: { 200: ['Removed', z.object({ id: z.string(), removed: z.literal(true).openapi({ description: 'Always true.' }) })] }, errors: { ...owners, 404: "No such person in this account's team.", 422: 'The last owner.' },
});
operation({ method: 'get', path: '/merchant/v1/audit-log', id: 'merchantAuditLog', tag, security: session, summary: 'Every change made in the account, newest first (owners)', query: PageQuery, responses: { 200: ['A page of entries', page(AuditEntry)] }, errors: { ...owners, 404: 'starting_after is not an entry of this log.' } });
const linkPage = (path: string, id: string, summary: string) =>
  operation({ method: 'get', path, id, tag, summary, query: z.object({ token: z.string().openapi({ description: 'The one-time token the mail carries.' }) }), responses: { 200: ['HTML'] }, htmlResponse: true });
linkPage('/merchant/accept-invitation', 'merchantAcceptInvitationPage', "The invitation link's page: choose a password, optionally enrol an authenticator app");
linkPage('/merchant/reset-password', 'merchantResetPasswordPage', "The reset link's page: choose a new password; with an authenticator, its code or a recovery code; from an authenticator recovery link, enrol a new one");

