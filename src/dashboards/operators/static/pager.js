// Cursor paging for the admin lists: one page at a time, Previous and Next, and whether more follow.
import { admin } from './api.js';
import { run } from './app.js';
import { clear, h } from './dom.js';

/**
 * A list read page by page. `path` is the list's admin path with its filters (and limit); each
 * page is fetched with starting_after the last id of the one before. `render(results, reload)`
 * draws a page's rows; `empty` is shown for an empty first page. Answers {el, reload}: reload
 * reads the page on screen again (after an action changed it).
 */
export function pagedList(path, render, empty) {
  const rows = h('div', {});
  const status = h('span', { class: 'muted', role: 'status' });
  const previous = h('button', { type: 'button', class: 'secondary small', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary small', disabled: true }, 'Next →');
  const controls = h('nav', { class: 'row pager', 'aria-label': 'Pages' }, previous, status, next);
  // The cursor each page read so far starts after (the first starts at the top).
  const cursors = [null];
  let nextCursor = null;

  const load = async () => {
    const after = cursors[cursors.length - 1];
    const url = after ? `${path}${path.includes('?') ? '&' : '?'}starting_after=${encodeURIComponent(after)}` : path;
    const data = await run(() => admin.get(url));
    if (!data) return;
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
