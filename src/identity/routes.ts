import { Router } from 'express';
import { throttledAddress } from '../http/admin-token-throttle';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import { PageQuery } from '../readback/schemas';
import { auditLogPage } from './audit';
import type { MerchantAccounts } from './index';
import { acceptInvitation, inviteMember, startInvitationTotp } from './invitations';
import { clearSessionCookie, merchantSessionOf, setSessionCookie } from './middleware';
import { requestPasswordResetAfterAnswer, resetPassword } from './password-resets';
import { AcceptInvitationBody, AuthenticatorProofBody, InvitationBody, PasswordResetBody, PasswordResetRequestBody, RoleChangeBody, SignInBody, TokenBody, TotpConfirmBody } from './schemas';
import { presentSession, sessionActor, signIn, signOut } from './sessions';
import { listTeam, listTeamInvitations, changeRole, removeMember, revokeTeamInvitation } from './team';
import { confirmOwnTotp, regenerateRecoveryCodes, startOwnTotp, startResetTotp } from './totp';
import { recoverMemberAuthenticator } from './authenticator-recovery';
import { throttledProof } from './proof-throttle';
import { merchant, merchantSession, publicRoute, route } from './route-access';

/**
 * The merchant dashboard's API (operator spec, section 7), mounted at /merchant/v1: the sign-in
 * and what a link opens (invitation, password reset) without a session, behind the per-address
 * limit; everything else behind requireMerchantSession and the role guard.
 */
export function merchantAccountRoutes({ ctx, throttle, limit, requireSession: session, secureCookies }: MerchantAccounts): Router {
  const router = Router();
  const openBehindLimit = publicRoute('a sign-in, or what a mailed link carries (its token the credential), behind the per-address limit');

  route(router, 'post', '/session', openBehindLimit, limit, async (req, res) => {
    const body = parseOrThrow(SignInBody, req.body);
    const signedIn = await signIn(ctx, throttle, throttledAddress(req.ip), body);
    setSessionCookie(res, signedIn.token, secureCookies);
    res.json(signedIn.body);
  });

  route(router, 'delete', '/session', merchantSession(session), async (req, res) => {
    parseEmptyBody(req.body);
    await signOut(ctx, merchantSessionOf(req));
    clearSessionCookie(res, secureCookies);
    res.json({ signed_out: true });
  });

  route(router, 'post', '/invitations/accept', openBehindLimit, limit, async (req, res) => {
    res.status(201).json(await acceptInvitation(ctx, parseOrThrow(AcceptInvitationBody, req.body)));
  });

  route(router, 'post', '/invitations/totp', openBehindLimit, limit, async (req, res) => {
    res.status(201).json(await startInvitationTotp(ctx, parseOrThrow(TokenBody, req.body).token));
  });

  // Answered before any work, the same for every email (requestPasswordResetAfterAnswer).
  route(router, 'post', '/password-resets', openBehindLimit, limit, (req, res) => {
    const { email } = parseOrThrow(PasswordResetRequestBody, req.body);
    res.status(202).json({ requested: true });
    requestPasswordResetAfterAnswer(ctx, email, req.ip ?? 'unknown');
  });

  route(router, 'post', '/password-resets/totp', openBehindLimit, limit, async (req, res) => {
    res.status(201).json(await startResetTotp(ctx, parseOrThrow(TokenBody, req.body).token));
  });

  route(router, 'post', '/password-resets/complete', openBehindLimit, limit, async (req, res) => {
    res.json(await resetPassword(ctx, throttle, throttledAddress(req.ip), parseOrThrow(PasswordResetBody, req.body)));
  });

  route(router, 'get', '/me', merchantSession(session), (req, res) => {
    res.json(presentSession(merchantSessionOf(req)));
  });

  route(router, 'post', '/me/totp', merchantSession(session), async (req, res) => {
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    const { user } = merchantSessionOf(req);
    res.status(201).json(await startOwnTotp(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });

  route(router, 'post', '/me/recovery-codes', merchantSession(session), async (req, res) => {
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    const { user } = merchantSessionOf(req);
    res.status(201).json(await regenerateRecoveryCodes(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });

  route(router, 'post', '/me/totp/confirm', merchantSession(session), async (req, res) => {
    const { code } = parseOrThrow(TotpConfirmBody, req.body);
    res.json(await confirmOwnTotp(ctx, merchantSessionOf(req).user.id, code));
  });

  route(router, 'get', '/team', merchant(session, 'team'), async (req, res) => {
    res.json(await listTeam(ctx, merchantSessionOf(req).merchant.id, parseOrThrow(PageQuery, req.query, 'Query')));
  });

  route(router, 'post', '/team/invitations', merchant(session, 'team'), async (req, res) => {
    const signedIn = merchantSessionOf(req);
    res.status(201).json(await inviteMember(ctx, signedIn.merchant.id, sessionActor(signedIn), parseOrThrow(InvitationBody, req.body)));
  });

  route(router, 'get', '/team/invitations', merchant(session, 'team'), async (req, res) => {
    res.json(await listTeamInvitations(ctx, merchantSessionOf(req).merchant.id, parseOrThrow(PageQuery, req.query, 'Query')));
  });

  route(router, 'delete', '/team/invitations/:id', merchant(session, 'team'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeTeamInvitation(ctx, merchantSessionOf(req), req.params.id as string));
  });

  route(router, 'patch', '/team/:id', merchant(session, 'team'), async (req, res) => {
    const { role } = parseOrThrow(RoleChangeBody, req.body);
    res.json(await changeRole(ctx, merchantSessionOf(req), req.params.id as string, role));
  });

  route(router, 'post', '/team/:id/authenticator-recovery', merchant(session, 'team'), async (req, res) => {
    parseEmptyBody(req.body);
    const { merchant, user } = merchantSessionOf(req);
    res.status(201).json(await recoverMemberAuthenticator(ctx, merchant.id, { actor: sessionActor(merchantSessionOf(req)), name: user.email }, req.params.id as string));
  });

  route(router, 'delete', '/team/:id', merchant(session, 'team'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await removeMember(ctx, merchantSessionOf(req), req.params.id as string));
  });

  route(router, 'get', '/audit-log', merchant(session, 'audit_log'), async (req, res) => {
    res.json(await auditLogPage(ctx.db, merchantSessionOf(req).merchant.id, parseOrThrow(PageQuery, req.query, 'Query')));
  });

  return router;
}
