import { h, clear } from './dom.js';
import { loadMoreList } from './list.js';
import { auditEntry } from './audit-entries.js';

/** The audit log (owners), newest first, paged. */
export async function auditPage(root) {
  const list = loadMoreList('/audit-log', (entry) => auditEntry(entry), 'No changes recorded yet.');
  clear(root, h('h2', {}, 'Audit log'), h('p', { class: 'muted' }, 'Every change made in this account, newest first.'), list);
  await list.ready;
}
