// The operator's people on the admin API, in the OpenAPI document.
import { z } from 'zod';
import { ADMIN_PAGING, ADMIN_TOKEN_THROTTLED, AdminAuth, DashboardSession, adminPaged, operation, page, pathId, TAGS, UNKNOWN_CURSOR } from '../http/openapi-operation';
import { DEFAULT_ADMIN_RESULTS, MAX_ADMIN_RESULTS, MerchantListQuery } from '../admin/schemas';
import { AuditLogQuery, Operator, OperatorAuditEntry, OperatorInvitation, OperatorInvitationBody, OperatorOpenInvitation, OperatorRoleBody, OperatorSessionAnswer } from './operator-schemas';
import { AuthenticatorProofBody, AuthenticatorRecovery, RecoveryCodes, SignInBody, TotpConfirmBody, TotpEnrolment } from './schemas';

const listQuery = adminPaged(MerchantListQuery, MAX_ADMIN_RESULTS, DEFAULT_ADMIN_RESULTS);
const security = [{ [AdminAuth.name]: [] }, { [DashboardSession.name]: [] }];
const errors = { 401: 'Missing or wrong admin token (or dashboard session / CSRF header).', 403: 'A dashboard session whose role is not operator_admin.', 429: ADMIN_TOKEN_THROTTLED };

operation({
  method: 'get', path: '/admin/v1/operators', id: 'adminListOperators', tag: TAGS.admin, security, summary: "The operator's people (who signs in to the operator dashboard), oldest first",
  description: ADMIN_PAGING, query: listQuery, responses: { 200: ["A page of the operator's people", page(Operator)] }, errors: { ...errors, 404: UNKNOWN_CURSOR },
});
operation({
  method: 'post', path: '/admin/v1/operators/invitations', id: 'adminInviteOperator', tag: TAGS.admin, security,
  summary: 'Invite one of the operator\'s people: the link is mailed, valid 7 days, used once; accepting it needs a password and an authenticator app', body: OperatorInvitationBody,
  responses: { 201: ['The invitation', OperatorInvitation] }, errors: { ...errors, 422: 'Invalid input, or the email already has an account.' },
});
operation({
  method: 'get', path: '/admin/v1/operators/invitations', id: 'adminListOperatorInvitations', tag: TAGS.admin, security, summary: "The open invitations to the operator's people, newest first, each naming who sent it",
  description: ADMIN_PAGING, query: listQuery, responses: { 200: ['A page of open invitations', page(OperatorOpenInvitation)] }, errors: { ...errors, 404: UNKNOWN_CURSOR },
});
operation({
  method: 'delete', path: '/admin/v1/operators/invitations/{id}', id: 'adminRevokeOperatorInvitation', tag: TAGS.admin, security, summary: 'Revoke an open invitation to the operator\'s people: its link stops working at once',
  params: pathId('inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 200: ['Revoked', z.object({ id: z.string(), revoked: z.literal(true).openapi({ description: 'Always true.' }) })] }, errors: { ...errors, 404: 'No such open invitation (accepted, revoked, expired or unknown).' },
});
operation({
  method: 'patch', path: '/admin/v1/operators/{id}', id: 'adminChangeOperatorRole', tag: TAGS.admin, security, summary: "Change the role of one of the operator's people: their sessions take it with their next call",
  params: pathId('opr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw'), body: OperatorRoleBody, responses: { 200: ['The person', Operator] }, errors: { ...errors, 404: 'No such operator.', 422: 'Invalid input.' },
});
operation({
  method: 'post', path: '/admin/v1/operators/{id}/authenticator-recovery', id: 'adminRecoverOperatorAuthenticator', tag: TAGS.admin, security,
  summary: "Start the recovery of a lost authenticator of one of the operator's people: their sessions end, and a one-time link to enrol a new one is mailed to them; audited",
  params: pathId('opr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 201: ['Started', AuthenticatorRecovery] }, errors: { ...errors, 404: 'No such operator.', 422: 'Your own authenticator.' },
});
operation({
  method: 'delete', path: '/admin/v1/operators/{id}', id: 'adminRemoveOperator', tag: TAGS.admin, security, summary: 'Remove one of the operator\'s people: every session of theirs ends at once',
  params: pathId('opr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw'), responses: { 200: ['Removed', z.object({ id: z.string(), removed: z.literal(true).openapi({ description: 'Always true: the person and every session of theirs are gone.' }) })] }, errors: { ...errors, 404: 'No such operator.' },
});

// The operator dashboard's session (the pages are the dashboard's).
const dashboardSession = [{ [DashboardSession.name]: [] }];
const notSignedIn = { 401: 'Not signed in (or signed out, or the person removed).' };
operation({
  method: 'post', path: '/dashboard/session', id: 'dashboardSignIn', tag: TAGS.dashboard, summary: "Sign in as one of the operator's people (email, password, authenticator code): sets the session cookie",
  body: SignInBody,
  responses: { 200: ['Signed in (Set-Cookie: dashboard_session, HttpOnly, SameSite=Strict, Secure outside development)', OperatorSessionAnswer] },
  errors: { 401: 'Wrong email, password or authenticator code, a code already used, or the code missing; or the account is a merchant\'s person, whose hint names /merchant/login.', 422: 'Invalid input.', 429: 'Too many failed sign-ins for the account or from the address, or too many account requests from the address (Retry-After seconds).' },
});
operation({ method: 'get', path: '/dashboard/session', id: 'dashboardSession', tag: TAGS.dashboard, security: dashboardSession, summary: 'The current session and its CSRF token', responses: { 200: ['The session', OperatorSessionAnswer] }, errors: notSignedIn });
operation({ method: 'delete', path: '/dashboard/session', id: 'dashboardSignOut', tag: TAGS.dashboard, security: dashboardSession, summary: 'Sign out (needs X-Dashboard-CSRF): the session is revoked, and a copy of its cookie is refused from then on', responses: { 200: ['Signed out', z.object({ signed_out: z.literal(true) })] }, errors: notSignedIn });
const changing = { ...notSignedIn, 401: 'Not signed in, or no X-Dashboard-CSRF header (or a wrong one).' };
operation({
  method: 'post', path: '/dashboard/session/totp', id: 'dashboardStartTotp', tag: TAGS.dashboard, security: dashboardSession,
  summary: 'Start replacing your authenticator app: takes a current code of it or a recovery code (needs X-Dashboard-CSRF)', body: AuthenticatorProofBody,
  responses: { 201: ['The secret to scan', TotpEnrolment] }, errors: { ...changing, 422: 'No code, or a wrong one.', 429: 'Too many wrong codes for the account or from the address (Retry-After seconds).' },
});
operation({
  method: 'post', path: '/dashboard/session/totp/confirm', id: 'dashboardConfirmTotp', tag: TAGS.dashboard, security: dashboardSession,
  summary: 'Confirm the new authenticator with a code of it: the old one stops working; answers new recovery codes, shown this once', body: TotpConfirmBody,
  responses: { 200: ['The person and their recovery codes', Operator.extend({ recovery_codes: RecoveryCodes.shape.recovery_codes })] }, errors: { ...changing, 422: 'No replacement started, or a wrong code.' },
});
operation({
  method: 'post', path: '/dashboard/session/recovery-codes', id: 'dashboardRegenerateRecoveryCodes', tag: TAGS.dashboard, security: dashboardSession,
  summary: 'A new set of recovery codes against a current authenticator code: the earlier set stops working', body: AuthenticatorProofBody,
  responses: { 201: ['The new codes, shown this once', RecoveryCodes] }, errors: { ...changing, 422: 'A missing or wrong code.', 429: 'Too many wrong codes for the account or from the address (Retry-After seconds).' },
});
operation({
  method: 'get', path: '/admin/v1/audit-log', id: 'adminAuditLog', tag: TAGS.admin, security,
  summary: "The whole audit log, newest first: every merchant's entries and the operator's own (its people, failed sign-ins of operators and unknown emails), each with its client address",
  description: ADMIN_PAGING, query: adminPaged(AuditLogQuery, MAX_ADMIN_RESULTS, DEFAULT_ADMIN_RESULTS), responses: { 200: ['A page of entries', page(OperatorAuditEntry)] }, errors: { ...errors, 404: UNKNOWN_CURSOR, 422: 'Invalid query.' },
});
