import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import { describeInvitation, describePasswordReset, ACCEPT_INVITATION_PATH, RESET_PASSWORD_PATH, publicRoute, route } from '../../identity';
import type { AccountsContext } from '../../identity/context';
import { renderLinkPage, type LinkPage } from './page';

const OPERATOR_SIGN_IN = '/dashboard/login';
const MERCHANT_SIGN_IN = '/merchant/login';

/** A token as links carry it; anything else is not looked up. */
const TOKEN = /^[0-9A-Za-z]{1,200}$/;

/**
 * Only this answer's inline script runs (styled by the dashboards' stylesheet, the QR code a data URL),
 * and no string ever becomes markup (Trusted Types); never
 * framed; the token in the address is sent to no other page (no Referer); never cached.
 */
function pageHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

function send(res: Response, page: LinkPage): void {
  const nonce = randomBytes(16).toString('base64');
  res.set(pageHeaders(nonce)).type('html').send(renderLinkPage(page, nonce));
}

const tokenOf = (query: unknown): string | null => {
  const token = (query as { token?: unknown }).token;
  return typeof token === 'string' && TOKEN.test(token) ? token : null;
};

/** What the reset page says: a recovery link enrols a new authenticator; a plain reset keeps the one enrolled. */
function resetLines(reset: { email: string; recovery: boolean; has_authenticator: boolean }): string[] {
  const lines = [`Choose a new password for ${reset.email}. Every session of yours is signed out.`];
  if (reset.recovery) lines.push('Your authenticator is being recovered: enrol a new authenticator app below (it replaces the old one).');
  else if (reset.has_authenticator) lines.push('Confirm with the current code of your authenticator app, or with one of your recovery codes.');
  return lines;
}

/** The pages the invitation and password-reset mails link to. */
export function merchantAccountPageRoutes(ctx: AccountsContext): Router {
  const router = Router();

  route(router, 'get', ACCEPT_INVITATION_PATH, publicRoute('the page a mailed invitation link opens; its token is the credential'), async (req, res) => {
    const token = tokenOf(req.query);
    const invitation = token ? await describeInvitation(ctx, token) : null;
    const operator = invitation?.operator ?? false;
    send(res, {
      title: invitation?.business ? `Join ${invitation.business}` : operator ? 'Join the operator dashboard' : 'Join the payments dashboard',
      lines: invitation
        ? [invitation.sentence, operator ? 'Choose your password and enrol an authenticator app: the operator dashboard asks for its code at every sign-in.' : 'Choose your password; you may also enrol an authenticator app.']
        : ['This invitation link is used, expired or unknown. Ask an owner of the account for a new one.'],
      token: invitation ? token : null,
      submitPath: '/merchant/v1/invitations/accept',
      totpPath: '/merchant/v1/invitations/totp',
      done: `Your account is ready: sign in as ${invitation?.email ?? 'yourself'}.`,
      signInPath: operator ? OPERATOR_SIGN_IN : MERCHANT_SIGN_IN,
      totpRequired: operator,
    });
  });

  route(router, 'get', RESET_PASSWORD_PATH, publicRoute('the page a mailed reset link opens; its token is the credential'), async (req, res) => {
    const token = tokenOf(req.query);
    const reset = token ? await describePasswordReset(ctx, token) : null;
    send(res, {
      title: 'Reset your password',
      lines: reset ? resetLines(reset) : ['This reset link is used, expired or unknown. Ask for a new one.'],
      token: reset ? token : null,
      submitPath: '/merchant/v1/password-resets/complete',
      totpPath: '/merchant/v1/password-resets/totp',
      done: 'Your password is changed: sign in with it.',
      signInPath: reset?.operator ? OPERATOR_SIGN_IN : MERCHANT_SIGN_IN,
      totpRequired: reset?.recovery ?? false,
      proveAuthenticator: !!reset && !reset.recovery && reset.has_authenticator,
    });
  });

  return router;
}
