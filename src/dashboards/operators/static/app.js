import { loadSession, signOut } from './api.js';
import { run, toast } from './ui.js';
import { clear, h } from './dom.js';
import { reviewsPage } from './reviews.js';
import { merchantsPage } from './merchants.js';
import { checkoutsPage } from './checkouts.js';
import { eventsPage } from './events.js';
import { customersPage } from './customers.js';
import { operatorsPage } from './operators.js';

export { confirmAction, run, toast } from './ui.js';

const PAGES = { reviews: reviewsPage, merchants: merchantsPage, checkouts: checkoutsPage, events: eventsPage, customers: customersPage, operators: operatorsPage };

async function start() {
  const session = await loadSession();
  document.getElementById('who').textContent = `${session.user.email} (${session.user.role})`;
  document.getElementById('sign-out').addEventListener('click', () => run(signOut));
  const name = location.pathname.split('/')[2] || 'reviews';
  for (const link of document.querySelectorAll('#nav a')) link.toggleAttribute('aria-current', link.dataset.page === name);
  const page = document.getElementById('page');
  clear(page, h('p', { class: 'muted' }, 'Loading…'));
  await (PAGES[name] || PAGES.reviews)(page, new URLSearchParams(location.search));
}

start().catch((error) => toast(error.message, 'error'));
