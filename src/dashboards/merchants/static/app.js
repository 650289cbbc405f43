import { api, loadSession, may, signOut } from './api.js';
import { run, toast } from './ui.js';
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
  const start = async () => {
    const enrolment = await run(() => api.post('/me/totp'));
    if (!enrolment) return;
    const code = h('input', { name: 'code', inputmode: 'numeric', pattern: '[0-9]{6}', maxlength: '6', autocomplete: 'one-time-code', required: true });
    const form = h('form', { class: 'inline-form' }, h('label', {}, 'Code from the app', code), h('button', { class: 'primary', type: 'submit' }, 'Confirm'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!(await run(() => api.post('/me/totp/confirm', { code: code.value }), 'Authenticator enrolled: sign-in asks for its code from now on.'))) return;
      box.hidden = true;
      session.user.totp_enabled = true;
      document.getElementById('enrol-totp').hidden = true;
    });
    clear(box,
      h('h3', {}, 'Enrol an authenticator app'),
      h('p', {}, 'Add this secret to your authenticator app (or open the link on your phone), then enter the code it shows.'),
      h('p', {}, 'Secret: ', h('code', { id: 'totp-secret' }, enrolment.secret)),
      h('p', {}, h('code', {}, enrolment.otpauth_uri)),
      form,
    );
    box.hidden = false;
  };
  const button = document.getElementById('enrol-totp');
  button.hidden = session.user.totp_enabled;
  button.addEventListener('click', start);
}

async function start() {
  const session = await loadSession();
  const { user, merchant } = session;
  document.getElementById('merchant-name').textContent = merchant.name;
  const env = document.getElementById('environment');
  env.textContent = merchant.environment;
  env.classList.add(merchant.environment);
  document.getElementById('who').textContent = `${user.email} (${user.role})`;
  document.getElementById('sign-out').addEventListener('click', () => run(signOut));
  enrolAuthenticator(session);
  const name = location.pathname.split('/')[2] || 'home';
  for (const link of document.querySelectorAll('#nav a')) {
    link.hidden = !!link.dataset.needs && !may(user.role, link.dataset.needs);
    link.toggleAttribute('aria-current', link.dataset.page === name);
  }
  const page = document.getElementById('page');
  clear(page, h('p', { class: 'muted' }, 'Loading…'));
  await (PAGES[name] || PAGES.home)(page, new URLSearchParams(location.search), session);
}

start().catch((error) => toast(error.message, 'error'));
