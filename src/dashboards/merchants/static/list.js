// Every list pages: at most PAGE_SIZE rows per call, then "Load more" with starting_after.
import { api } from './api.js';
import { run } from './ui.js';
import { h } from './dom.js';

export const PAGE_SIZE = 25;

/**
 * A list that loads `path` (with its query, `?...`) page by page: `render(item)` makes each row,
 * `empty` is said when there is none. Answers the element (its first page loading).
 */
export function pagedList(path, render, empty, { tag = 'ul', className = 'plain list' } = {}) {
  const list = h(tag, { class: className });
  const more = h('button', { class: 'secondary', hidden: true }, 'Load more');
  const status = h('p', { class: 'muted' }, 'Loading…');
  let after = null;
  const load = async () => {
    more.disabled = true;
    const sep = path.includes('?') ? '&' : '?';
    const page = await run(() => api.get(`${path}${sep}limit=${PAGE_SIZE}${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`));
    more.disabled = false;
    if (!page) return;
    for (const item of page.results) list.append(render(item));
    status.hidden = list.childElementCount > 0;
    status.textContent = empty;
    after = page.next_starting_after;
    more.hidden = !page.has_more;
  };
  more.addEventListener('click', load);
  const box = h('div', { class: 'paged' }, list, status, h('div', { class: 'pager' }, more));
  box.ready = load();
  return box;
}

/** A person as people read them: their name where the record has one, else the email; the id comes second. */
export const customerName = (c) => (c ? `${c.first_name || ''} ${c.last_name || ''}`.trim() || c.email || c.id : '—');
