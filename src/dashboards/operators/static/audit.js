import { clear, h } from './dom.js';
import { pagedList } from './list.js';
import { query } from './api.js';
import { auditEntry } from './audit-entries.js';

const SCOPES = [['', 'Everything'], ['operator', "The operator's own (its people, failed sign-ins)"]];

/** Where an entry happened: the merchant by name, or the operator's own log. */
const placeOf = (entry) => (entry.merchant_id ? entry.merchant_name || 'a merchant no longer here' : "the operator's own");

function filtersForm(params) {
  const scope = h('select', { name: 'scope' }, SCOPES.map(([value, label]) => h('option', { value, selected: (params.get('scope') || '') === value }, label)));
  const actor = h('input', { name: 'actor', type: 'search', value: params.get('actor') || '', maxlength: '320', placeholder: 'an email' });
  return h('form', { class: 'card filters', method: 'get' },
    h('label', {}, 'Show', scope),
    h('label', {}, 'By or tried as', actor),
    h('button', { type: 'submit', class: 'secondary' }, 'Filter'));
}

/**
 * The whole audit log (operator_admin): every merchant's entries and the operator's own, newest
 * first, a page at a time, each as a sentence (a failed sign-in names the email tried and the address).
 */
export async function auditPage(root, params) {
  const filters = { limit: 25, operator_only: params.get('scope') === 'operator' ? 'true' : undefined, actor: params.get('actor') || undefined, merchant_id: params.get('merchant_id') || undefined };
  const list = pagedList(`/audit-log${query(filters)}`, (entries) => h('ul', { class: 'plain list' }, entries.map((entry) => auditEntry(entry, placeOf(entry)))), h('p', { class: 'muted' }, 'No entries match.'));
  clear(root, h('h2', {}, 'Audit log'), h('p', { class: 'muted' }, "Every change made in every merchant's account and by the operator's people, with each refused sign-in, newest first."), filtersForm(params), list.el);
  await list.reload();
}
