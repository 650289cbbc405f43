import { h, clear, when } from './dom.js';
import { loadMoreList } from './list.js';
import { actorText, auditSentence } from './sentences.js';

/** One entry: the sentence, one line per changed setting, and the action code and ids in a muted line to copy. */
function auditEntry(entry) {
  const { sentence, lines } = auditSentence(entry);
  const ids = [entry.action, entry.actor, entry.target].filter(Boolean).join(' · ');
  return h('li', { class: 'card compact audit', 'data-audit': entry.action, title: entry.id },
    h('div', { class: 'row spread' }, h('p', {}, sentence), h('time', { datetime: entry.at, class: 'muted' }, when(entry.at))),
    lines.length ? h('ul', { class: 'changes' }, lines.map((line) => h('li', {}, line))) : null,
    h('p', { class: 'muted ids' }, h('small', {}, 'By ', h('span', { class: 'actor' }, actorText(entry)), ` · ${ids}`)),
  );
}

/** The audit log (owners), newest first, paged. */
export async function auditPage(root) {
  const list = loadMoreList('/audit-log', auditEntry, 'No changes recorded yet.');
  clear(root, h('h2', {}, 'Audit log'), h('p', { class: 'muted' }, 'Every change made in this account, newest first.'), list);
  await list.ready;
}
