import { api } from './api.js';
import { start } from './shell.js';
import { may, rolesWith } from './roles.js';
import { run } from './ui.js';
import { clear, h } from './dom.js';
import { homePage } from './home.js';
import { paymentsPage } from './payments.js';
import { customersPage } from './customers.js';
import { reviewsPage } from './reviews.js';
import { developersPage } from './developers.js';
import { teamPage } from './team.js';
import { auditPage } from './audit.js';

const PAGES = { home: homePage, payments: paymentsPage, customers: customersPage, reviews: reviewsPage, developers: developersPage, team: teamPage, audit: auditPage };

/** Enrolling an authenticator: the secret to add to the app, then a code from it to confirm. */
function enrolAuthenticator(session) {
  const box = document.getElementById('totp');
  const begin = async () => {
    const enrolment = await run(() => api.post('/me/totp'));
    if (!enrolment) return;
    const code = h('input', { name: 'code', inputmode: 'numeric', pattern: '[0-9]{6}', maxlength: '6', autocomplete: 'one-time-code', required: true });
    const form = h('form', { class: 'inline-form' }, h('label', {}, 'Code from the app', code), h('button', { class: 'primary', type: 'submit' }, 'Confirm'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const confirmed = await run(() => api.post('/me/totp/confirm', { code: code.value }), 'Authenticator enrolled: sign-in asks for its code from now on.');
      if (!confirmed) return;
      session.user.totp_enabled = true;
      document.getElementById('enrol-totp').hidden = true;
      // The recovery codes come this once (only their hashes are kept): shown until the page is left.
      clear(box,
        h('h3', {}, 'Your recovery codes'),
        h('p', {}, 'Write them down and keep them offline. Each works once, in place of a code, to sign in or to complete a password reset if you lose your phone.'),
        h('ul', { id: 'recovery-codes' }, ...confirmed.recovery_codes.map((recoveryCode) => h('li', {}, h('code', {}, recoveryCode)))),
      );
    });
    clear(box,
      h('h3', {}, 'Enrol an authenticator app'),
      h('p', {}, 'Scan this code with your authenticator app, or type the secret into it, then enter the code it shows.'),
      h('img', { class: 'qr', src: enrolment.qr_code, alt: 'QR code of your authenticator secret', width: 200, height: 200 }),
      h('p', {}, 'Secret: ', h('code', { id: 'totp-secret', class: 'id' }, enrolment.secret)),
      form,
    );
    box.hidden = false;
  };
  const button = document.getElementById('enrol-totp');
  button.hidden = session.user.totp_enabled;
  button.addEventListener('click', begin);
}

/** The merchant's name and environment in the header, and the authenticator enrolment. */
function decorate(session) {
  const { merchant } = session;
  document.getElementById('merchant-name').textContent = merchant.name;
  const env = document.getElementById('environment');
  env.textContent = merchant.environment;
  env.classList.add(merchant.environment);
  enrolAuthenticator(session);
}

start(PAGES, { allowed: (item, session) => !item.needs || may(session.user.role, item.needs), rolesWith, decorate });
