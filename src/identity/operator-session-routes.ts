import { Router, type Request } from 'express';
import { throttledAddress } from '../http/admin-token-throttle';
import { AdminAuthenticationError } from '../http/errors';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import type { MerchantAccounts } from './index';
import { AuthenticatorProofBody, SignInBody, TotpConfirmBody } from './schemas';
import { presentOperatorSession, signInOperator, signOutOperator } from './operator-sessions';
import { clearDashboardCookie, csrfOk, dashboardSessionOf, setDashboardCookie, SIGN_IN_HINT } from './admin-guard';
import { throttledProof } from './proof-throttle';
import { confirmOwnTotp, regenerateRecoveryCodes, startOwnTotp } from './totp';

export const notSignedInOperator = () => new AdminAuthenticationError('Not signed in.', SIGN_IN_HINT);

/**
 * POST/GET/DELETE /session (mounted under /dashboard): the operator's people sign in as themselves
 * (email, password, authenticator code) with the merchant accounts' machinery, and their
 * server-side session opens the operator dashboard's pages and the admin API.
 */
export function operatorSessionRoutes({ ctx, throttle, limit, secureCookies }: MerchantAccounts): Router {
  const router = Router();
  // Throttled per account and per address like the merchant sign-in (the same counts), behind the account routes' limit.
  router.post('/session', limit, async (req, res) => {
    const body = parseOrThrow(SignInBody, req.body ?? {});
    const signedIn = await signInOperator(ctx, throttle, throttledAddress(req.ip), body);
    setDashboardCookie(res, signedIn.token, secureCookies);
    res.set('Cache-Control', 'no-store').json(signedIn.body);
  });
  router.get('/session', async (req, res) => {
    const session = await dashboardSessionOf(ctx, req);
    if (!session) throw notSignedInOperator();
    res.set('Cache-Control', 'no-store').json(presentOperatorSession(session));
  });
  // Revokes the session for every API process, so a copy of the cookie is refused from now on.
  router.delete('/session', async (req, res) => {
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
  router.post('/session/totp', async (req, res) => {
    const { user } = await changingSession(req);
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    res.status(201).set('Cache-Control', 'no-store').json(await startOwnTotp(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });
  router.post('/session/totp/confirm', async (req, res) => {
    const { user } = await changingSession(req);
    const { code } = parseOrThrow(TotpConfirmBody, req.body);
    res.set('Cache-Control', 'no-store').json(await confirmOwnTotp(ctx, user.id, code));
  });
  router.post('/session/recovery-codes', async (req, res) => {
    const { user } = await changingSession(req);
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    res.status(201).set('Cache-Control', 'no-store').json(await regenerateRecoveryCodes(ctx, throttledProof(throttle, user.email, throttledAddress(req.ip)), user, proof));
  });
  return router;
}
