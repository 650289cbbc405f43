import { Router, type Request } from 'express';
import { throttledAddress } from '../http/admin-token-throttle';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import type { MerchantAccounts } from './index';
import { AuthenticatorProofBody, SignInBody, TotpConfirmBody } from './schemas';
import { presentOperatorSession, signInOperator, signOutOperator } from './operator-sessions';
import { clearDashboardCookie, csrfOk, dashboardSessionOf, notSignedInOperator, setDashboardCookie } from './admin-guard';
import { publicRoute, route } from './route-access';
import { throttledProof } from './proof-throttle';
import { confirmOwnTotp, regenerateRecoveryCodes, startOwnTotp } from './totp';

/**
 * POST/GET/DELETE /session (mounted under /dashboard): the operator's people sign in as themselves
 * (email, password, authenticator code) with the merchant accounts' machinery, and their
 * server-side session opens the operator dashboard's pages and the admin API.
 */
export function operatorSessionRoutes({ ctx, throttle, limit, secureCookies }: MerchantAccounts): Router {
  const router = Router();
  // Throttled per account and per address like the merchant sign-in (the same counts), behind the account routes' limit.
  route(router, 'post', '/session', publicRoute('the operator\'s sign-in, behind its throttle and the per-address limit'), limit, async (req, res) => {
    const body = parseOrThrow(SignInBody, req.body ?? {});
    const signedIn = await signInOperator(ctx, throttle, throttledAddress(req.ip), body);
    setDashboardCookie(res, signedIn.token, secureCookies);
    res.set('Cache-Control', 'no-store').json(signedIn.body);
  });
  route(router, 'get', '/session', publicRoute('reads the caller\'s own dashboard session cookie; none is 401'), async (req, res) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session) throw notSignedInOperator();
    res.set('Cache-Control', 'no-store').json(presentOperatorSession(session));
  });
  // Revokes the session for every API process, so a copy of the cookie is refused from now on.
  route(router, 'delete', '/session', publicRoute('ends the caller\'s own dashboard session (cookie and CSRF header); none is 401'), async (req, res) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session || !csrfOk(req, session)) throw notSignedInOperator();
    parseEmptyBody(req.body);
    await signOutOperator(ctx, session);
    clearDashboardCookie(res, secureCookies);
    res.json({ signed_out: true });
  });

  // The person's own authenticator: replacing it, or new recovery codes, takes a current code of it or a recovery code (throttled like a sign-in).
  const changingSession = async (req: Request) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session || !csrfOk(req, session)) throw notSignedInOperator();
    return session;
  };
  const ownAuthenticator = publicRoute('the caller\'s own authenticator: its dashboard session cookie, CSRF header and a current code or recovery code; none is 401');
  route(router, 'post', '/session/totp', ownAuthenticator, async (req, res) => {
    const { user } = await changingSession(req);
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    res.status(201).set('Cache-Control', 'no-store').json(await startOwnTotp(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });
  route(router, 'post', '/session/totp/confirm', ownAuthenticator, async (req, res) => {
    const { user } = await changingSession(req);
    const { code } = parseOrThrow(TotpConfirmBody, req.body);
    res.set('Cache-Control', 'no-store').json(await confirmOwnTotp(ctx, user.id, code));
  });
  route(router, 'post', '/session/recovery-codes', ownAuthenticator, async (req, res) => {
    const { user } = await changingSession(req);
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    res.status(201).set('Cache-Control', 'no-store').json(await regenerateRecoveryCodes(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });
  return router;
}
