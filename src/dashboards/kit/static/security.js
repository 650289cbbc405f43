// "Your security", in both dashboards: the signed-in person's authenticator app and recovery codes.
// Replacing an enrolled app, or making new recovery codes, takes a current code of the app or a
// recovery code (the server checks it and counts wrong ones like a sign-in).
import { config } from './config.js';
import { api } from './api.js';
import { run } from './ui.js';
import { clear, h } from './dom.js';

const CODE_PATTERN = '[0-9]{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}';

/** A current code of the app (6 digits) or a recovery code (xxxxx-xxxxx), as the API takes it. */
export function proofOf(value) {
  const code = value.trim();
  return /^[0-9]{6}$/.test(code) ? { totp_code: code } : { recovery_code: code };
}

export function codeField(label, name = 'proof') {
  const input = h('input', { name, pattern: CODE_PATTERN, maxlength: '11', autocomplete: 'one-time-code', required: true });
  return { input, label: h('label', {}, label, input) };
}

/** The recovery codes, shown this once (only their hashes are kept). */
function recoveryCodes(codes) {
  return [
    h('h3', {}, 'Your recovery codes'),
    h('p', {}, 'Write them down and keep them offline. Each works once, in place of a code from the app, to sign in or to complete a password reset if you lose your phone. Earlier codes no longer work.'),
    h('ol', { id: 'recovery-codes', class: 'codes' }, codes.map((code) => h('li', {}, h('code', {}, code)))),
  ];
}

/** The enrolment's second step: scan the QR code (or type the secret), then confirm with a code of the new app. */
function scanAndConfirm(box, enrolment, session) {
  const { input, label } = codeField('Code from the new app', 'code');
  input.setAttribute('pattern', '[0-9]{6}');
  input.setAttribute('maxlength', '6');
  input.setAttribute('inputmode', 'numeric');
  const form = h('form', { class: 'inline-form' }, label, h('button', { class: 'primary', type: 'submit' }, 'Confirm'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const confirmed = await run(() => api.postAt(config.authenticator.confirm, { code: input.value.trim() }), 'Authenticator app enrolled: sign-in asks for its code from now on.');
    if (!confirmed) return;
    session.user.totp_enabled = true;
    clear(box, recoveryCodes(confirmed.recovery_codes));
  });
  clear(box,
    h('h3', {}, 'Scan this with your authenticator app'),
    h('img', { class: 'qr', src: enrolment.qr_code, width: '200', height: '200', alt: 'QR code of the authenticator secret' }),
    h('p', {}, 'Or type the secret: ', h('code', { id: 'totp-secret', class: 'secret' }, enrolment.secret)),
    form,
  );
}

/** The page: the authenticator's state with the one action that fits it, and new recovery codes. */
export function securityPage(el, _params, session) {
  const enrolled = session.user.totp_enabled;
  const box = h('div', { id: 'totp', 'aria-live': 'polite' });

  const start = h('form', { class: 'inline-form' });
  const current = enrolled ? codeField('Code from your current app, or a recovery code') : null;
  if (current) start.append(current.label);
  start.append(h('button', { class: enrolled ? 'secondary' : 'primary', type: 'submit', id: 'enrol-totp' }, enrolled ? 'Replace authenticator app' : 'Enrol an authenticator app'));
  start.addEventListener('submit', async (event) => {
    event.preventDefault();
    const enrolment = await run(() => api.postAt(config.authenticator.start, current ? proofOf(current.input.value) : {}));
    if (enrolment) scanAndConfirm(box, enrolment, session);
  });

  const renew = codeField('Code from your app, or a recovery code');
  const renewForm = h('form', { class: 'inline-form' }, renew.label, h('button', { class: 'secondary', type: 'submit' }, 'Make new recovery codes'));
  renewForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const renewed = await run(() => api.postAt(config.authenticator.recoveryCodes, proofOf(renew.input.value)), 'New recovery codes made: the earlier ones no longer work.');
    if (renewed) clear(box, recoveryCodes(renewed.recovery_codes));
  });

  clear(el,
    h('h2', {}, 'Your security'),
    h('section', { class: 'card' },
      h('h3', {}, 'Authenticator app'),
      h('p', {}, enrolled ? 'On: signing in asks for a code from your app.' : 'Off: signing in asks only for your password. An authenticator app keeps your account safe if your password leaks.'),
      start,
      box),
    enrolled ? h('section', { class: 'card' }, h('h3', {}, 'Recovery codes'), h('p', {}, 'Lost them, or used most? Make a new set; the earlier set stops working.'), renewForm) : null,
  );
}
