// One audit entry as both dashboards' audit pages show it: the sentence, one line per changed
// setting, who and when, and the action and ids marked as ids (to copy) in a muted line.
import { h, when } from './dom.js';
import { actorText, auditSentence } from './sentences.js';

/** `place`: where the entry happened, for a log that spans merchants (the operator's); omitted on a merchant's own. */
export function auditEntry(entry, place = null) {
  const { sentence, lines } = auditSentence(entry);
  const ids = [...new Set([entry.actor, entry.target])].filter((id) => id && id !== 'admin' && id !== 'anonymous');
  return h('li', { class: 'card compact audit', 'data-audit': entry.action, title: entry.id },
    h('div', { class: 'row spread' }, h('p', {}, sentence), h('time', { datetime: entry.at, class: 'muted' }, when(entry.at))),
    lines.length ? h('ul', { class: 'changes' }, lines.map((line) => h('li', {}, line))) : null,
    h('p', { class: 'muted ids' }, h('small', {},
      'By ', h('span', { class: 'actor' }, actorText(entry)),
      place ? [' · ', h('span', { class: 'place' }, place)] : null,
      entry.client_address ? ` · from ${entry.client_address}` : null,
      ' · ', h('code', { class: 'id' }, entry.action),
      ids.map((id) => [' · ', h('code', { class: 'id' }, id)]))),
  );
}
