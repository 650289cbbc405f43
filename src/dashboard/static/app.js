import { loadSession, signOut } from './api.js';
import { clear, h } from './dom.js';
import { reviewsPage } from './reviews.js';
import { merchantsPage } from './merchants.js';
import { checkoutsPage } from './checkouts.js';
import { eventsPage } from './events.js';
import { customersPage } from './customers.js';
import { operatorsPage } from './operators.js';

const PAGES = { reviews: reviewsPage, merchants: merchantsPage, checkouts: checkoutsPage, events: eventsPage, customers: customersPage, operators: operatorsPage };

/** A short message at the bottom of the screen (success or failure of an action). */
export function toast(message, kind = 'ok') {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.hidden = true), 6000);
}

/** The confirmation step before anything that changes money or access. Resolves true on Confirm. */
export function confirmAction(text, okLabel = 'Confirm') {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true }));
}

/** Runs an action, showing its error on the page instead of failing silently. */
export async function run(action, success) {
  try {
    const result = await action();
    if (success) toast(typeof success === 'function' ? success(result) : success);
    return result;
  } catch (error) {
    toast(error.message, 'error');
    return undefined;
  }
}

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
