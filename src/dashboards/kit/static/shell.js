// The app shell both dashboards share: the navigation (from the dashboard's config.js), the header's
// person and sign-out, and the page the path names rendered into main#page, or the page saying why
// it cannot be shown (a role that may not open it, a read that failed).
import { config } from './config.js';
import { loadSession, signOut } from './api.js';
import { endsPageLoad, run, toast, whilePageLoads } from './ui.js';
import { clear, h } from './dom.js';
import { loadFailedPage, noAccessPage } from './problems.js';
import { roleName } from './sentences.js';

const hrefOf = (page) => (page === config.home ? config.mount : `${config.mount}/${page}`);

/**
 * Starts the dashboard: `pages` maps each page's name to its render(el, params, session);
 * `allowed(item, session)` says whether the role may open a nav entry (hidden, and its page
 * replaced by one naming the roles that may: `rolesWith(item.needs)`); `decorate(session)` adds
 * the dashboard's own header parts.
 */
export async function startShell(pages, { allowed = () => true, rolesWith = () => [], decorate = () => {} } = {}) {
  const page = document.getElementById('page');
  const session = await loadSession();
  const { user } = session;
  document.getElementById('who').textContent = `${user.email} (${roleName(user.role)})`;
  document.getElementById('sign-out').addEventListener('click', () => run(signOut));
  const name = pages[location.pathname.split('/')[2]] ? location.pathname.split('/')[2] : config.home;
  clear(document.getElementById('nav'), config.nav.map((item) =>
    h('a', { href: hrefOf(item.page), 'data-page': item.page, hidden: !allowed(item, session), 'aria-current': item.page === name ? 'page' : null }, item.label)));
  decorate(session);
  const item = config.nav.find((entry) => entry.page === name);
  if (item && !allowed(item, session)) {
    clear(page, noAccessPage(item.label, rolesWith(item.needs), user.role));
    return;
  }
  clear(page, h('p', { class: 'muted' }, 'Loading…'));
  const done = whilePageLoads((error) => clear(page, loadFailedPage(error)));
  try {
    await pages[name](page, new URLSearchParams(location.search), session);
  } finally {
    done();
  }
}

/** startShell, its failure shown as a page (the service down, the session unreadable) rather than lost. */
export function start(pages, options) {
  startShell(pages, options).catch((error) => {
    if (endsPageLoad(error)) clear(document.getElementById('page'), loadFailedPage(error));
    else toast(error.message, 'error');
  });
}
