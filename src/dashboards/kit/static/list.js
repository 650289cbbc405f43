// The dashboards' lists, read with the API's cursor paging (starting_after the last id of the page before).
import { api } from './api.js';
import { run } from './ui.js';
import { clear, h } from './dom.js';

export const PAGE_SIZE = 25;

const withCursor = (path, after) => (after ? `${path}${path.includes('?') ? '&' : '?'}starting_after=${encodeURIComponent(after)}` : path);

/**
 * A list read one page at a time with Previous and Next, saying whether more follow. `path` is the
 * list's path with its filters (and limit); `render(results, reload)` draws a page's rows; `empty`
 * is shown for an empty first page; `onPage(data)`, if given, sees each answer whole (fields beside
 * the rows, such as counts). Answers {el, reload}: reload reads the page on screen again.
 */
export function pagedList(path, render, empty, onPage = () => {}) {
  const rows = h('div', {});
  const status = h('span', { class: 'muted', role: 'status' });
  const previous = h('button', { type: 'button', class: 'secondary small', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary small', disabled: true }, 'Next →');
  const controls = h('nav', { class: 'row pager', 'aria-label': 'Pages' }, previous, status, next);
  // The cursor each page read so far starts after (the first starts at the top).
  const cursors = [null];
  let nextCursor = null;

  const load = async () => {
    const data = await run(() => api.get(withCursor(path, cursors[cursors.length - 1])));
    if (!data) return;
    onPage(data);
    nextCursor = data.has_more ? data.next_starting_after : null;
    const page = cursors.length;
    clear(rows, data.results.length ? render(data.results, load) : page === 1 ? empty : h('p', { class: 'muted' }, 'Nothing on this page any more.'));
    status.textContent = `Page ${page} · ${data.has_more ? 'more on the next page' : 'end of the list'}`;
    previous.disabled = page === 1;
    next.disabled = !data.has_more;
    // A list that fits on one page needs no controls.
    controls.hidden = page === 1 && !data.has_more;
  };
  next.addEventListener('click', () => {
    if (!nextCursor) return;
    cursors.push(nextCursor);
    void load();
  });
  previous.addEventListener('click', () => {
    if (cursors.length === 1) return;
    cursors.pop();
    void load();
  });
  return { el: h('div', { class: 'paged' }, rows, controls), reload: load };
}

/**
 * A list that grows: PAGE_SIZE rows per call, then "Load more". `render(item)` makes each row,
 * `empty` is said when there is none. Answers the element; its `ready` settles with the first page.
 */
export function loadMoreList(path, render, empty, { tag = 'ul', className = 'plain list' } = {}) {
  const list = h(tag, { class: className });
  const more = h('button', { class: 'secondary', hidden: true }, 'Load more');
  const status = h('p', { class: 'muted' }, 'Loading…');
  const limited = `${path}${path.includes('?') ? '&' : '?'}limit=${PAGE_SIZE}`;
  let after = null;
  const load = async () => {
    more.disabled = true;
    const page = await run(() => api.get(withCursor(limited, after)));
    more.disabled = false;
    if (!page) {
      // Said in place of "Loading…"; the button reads the same page again.
      status.textContent = 'This list could not be read.';
      status.hidden = false;
      more.textContent = 'Try again';
      more.hidden = false;
      return;
    }
    more.textContent = 'Load more';
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
