// The sign-in page both dashboards share (config.js names the endpoints): email, password and the
// authenticator code or a recovery code (asked for, as the next step, when the account needs one);
// and the "Forgot your password?" form.
import { config } from './config.js';

const form = document.getElementById('sign-in');
const error = document.getElementById('error');
const codeField = document.getElementById('code-field');
const codeNote = document.getElementById('code-note');

/** The API's answer when the account has an authenticator and no code came (src/identity/totp.ts). */
const CODE_REQUIRED = 'Authenticator code required.';

const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { res, body: await res.json().catch(() => ({})) };
};

/**
 * Shows `text` in `el`; a sign-in page's address in it (another dashboard's, named by the API's
 * hint) becomes a link. Text only: the link is an element made here, never markup from a string.
 */
const say = (el, text) => {
  const parts = text.split(/(\/(?:dashboard|merchant)\/login)\b/);
  el.replaceChildren(...parts.map((part, i) => {
    if (i % 2 === 0) return document.createTextNode(part);
    const link = document.createElement('a');
    link.href = part;
    link.textContent = part;
    return link;
  }));
  el.hidden = false;
};

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  const data = new FormData(form);
  const body = { email: data.get('email'), password: data.get('password') };
  // One field takes either: six digits are the app's code, anything else one of the recovery codes.
  const code = codeField.hidden ? '' : String(data.get('totp_code') ?? '').trim();
  if (/^[0-9]{6}$/.test(code)) body.totp_code = code;
  else if (code) body.recovery_code = code;
  const { res, body: answer } = await post(config.signIn, body);
  if (res.ok) {
    location.assign(config.afterSignIn);
    return;
  }
  // The account has an authenticator: asking for its code is the next step of signing in, not an error.
  if (res.status === 401 && answer.error === CODE_REQUIRED && codeField.hidden) {
    codeField.hidden = false;
    codeField.querySelector('input').required = true;
    if (codeNote) codeNote.hidden = false;
    codeField.querySelector('input').focus();
    return;
  }
  // A refusal's hint says what to do next (how long a throttled address waits: 429 with Retry-After; where this account signs in).
  say(error, [answer.error, answer.hint].filter(Boolean).join(' ') || 'Sign-in failed.');
});

const forgot = document.getElementById('forgot');
forgot?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const { res, body } = await post(config.passwordResets, { email: new FormData(forgot).get('email') });
  say(document.getElementById('forgot-result'), res.ok ? 'If that email has an account, a reset link is on its way. It works once, for an hour.' : [body.error, body.hint].filter(Boolean).join(' '));
});
