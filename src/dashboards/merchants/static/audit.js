import { h, clear, money, when } from './dom.js';
import { loadMoreList } from './list.js';

/** Who made the change as people read it: the person's email, the operator's person, the operator's automation, or the invited person. */
function actorText(entry) {
  if (entry.actor_kind === 'admin') return 'the operator (admin token)';
  if (entry.actor_kind === 'operator') return `${entry.actor_email} (operator)`;
  if (entry.actor_email) return entry.actor_email;
  // Before their account exists, an invited person acts as their invitation (the authenticator enrolment on its page).
  if (entry.actor.startsWith('inv_')) return `the invited person (${entry.actor})`;
  return `a former member (${entry.actor})`;
}

function detailsText(details) {
  const pairs = Object.entries(details || {});
  const text = (k, v) => (k.endsWith('_cents') && typeof v === 'number' ? money(v) : typeof v === 'string' ? v : JSON.stringify(v));
  return pairs.map(([k, v]) => `${k.replace(/_cents$/, '')}: ${text(k, v)}`).join(' · ');
}

/** The audit log (owners), newest first, paged. */
export async function auditPage(root) {
  const list = loadMoreList('/audit-log', (entry) =>
    h('li', { class: 'card compact', 'data-audit': entry.action },
      h('div', { class: 'row spread' }, h('strong', {}, entry.action), h('time', { datetime: entry.at, class: 'muted' }, when(entry.at))),
      h('p', {}, 'By ', h('span', { class: 'actor' }, actorText(entry)), entry.target ? [' · on ', h('code', {}, entry.target)] : null),
      detailsText(entry.details) && h('p', { class: 'muted' }, h('small', {}, detailsText(entry.details))),
    ), 'No changes recorded yet.');
  clear(root, h('h2', {}, 'Audit log'), h('p', { class: 'muted' }, 'Every change made in this account, newest first.'), list);
  await list.ready;
}
