// The app shell both dashboards share: the navigation (from the dashboard's config.js), the header's
// person and sign-out, and the page the path names rendered into main#page.
import { config } from './config.js';
import { loadSession, signOut } from './api.js';
import { run, toast } from './ui.js';
import { clear, h } from './dom.js';

const hrefOf = (page) => (page === config.home ? config.mount : `${config.mount}/${page}`);

/**
 * Starts the dashboard: `pages` maps each page's name to its render(el, params, session);
 * `allowed(item, session)` hides a nav entry the role may not open; `decorate(session)` adds the
 * dashboard's own header parts.
 */
export async function startShell(pages, { allowed = () => true, decorate = () => {} } = {}) {
  const session = await loadSession();
  const { user } = session;
  document.getElementById('who').textContent = `${user.email} (${user.role})`;
  document.getElementById('sign-out').addEventListener('click', () => run(signOut));
  const name = location.pathname.split('/')[2] || config.home;
  clear(document.getElementById('nav'), config.nav.map((item) =>
    h('a', { href: hrefOf(item.page), 'data-page': item.page, hidden: !allowed(item, session), 'aria-current': item.page === name ? 'page' : null }, item.label)));
  decorate(session);
  const page = document.getElementById('page');
  clear(page, h('p', { class: 'muted' }, 'Loading…'));
  await (pages[name] || pages[config.home])(page, new URLSearchParams(location.search), session);
}

/** startShell, its failure shown rather than lost. */
export function start(pages, options) {
  startShell(pages, options).catch((error) => toast(error.message, 'error'));
}
