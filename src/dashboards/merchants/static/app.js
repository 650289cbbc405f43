import { start } from './shell.js';
import { may, rolesWith } from './roles.js';
import { homePage } from './home.js';
import { paymentsPage } from './payments.js';
import { customersPage } from './customers.js';
import { reviewsPage } from './reviews.js';
import { developersPage } from './developers.js';
import { teamPage } from './team.js';
import { securityPage } from './security.js';
import { auditPage } from './audit.js';

const PAGES = { home: homePage, payments: paymentsPage, customers: customersPage, reviews: reviewsPage, developers: developersPage, team: teamPage, audit: auditPage, security: securityPage };

/** The merchant's name and environment in the header, and the authenticator enrolment. */
function decorate(session) {
  const { merchant } = session;
  document.getElementById('merchant-name').textContent = merchant.name;
  const env = document.getElementById('environment');
  env.textContent = merchant.environment;
  env.classList.add(merchant.environment);
  // Without an authenticator, the header points to the page that enrols one.
  document.getElementById('enrol-totp').hidden = session.user.totp_enabled;
}

start(PAGES, { allowed: (item, session) => !item.needs || may(session.user.role, item.needs), rolesWith, decorate });
