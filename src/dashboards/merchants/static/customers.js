import { query, api } from './api.js';
import { may } from './roles.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, json, when } from './dom.js';
import { loadMoreList } from './list.js';
import { customerName } from './records.js';

function customerCard(c, role, reload) {
  const lift = async () => {
    if (!(await confirmAction(`Lift the restriction (${c.restriction_reason}) on ${customerName(c)}? They can pay again at once.`, 'Lift restriction'))) return;
    if (await run(() => api.post(`/customers/${encodeURIComponent(c.id)}/unrestrict`), 'Restriction lifted.')) await reload();
  };
  return h('li', { class: 'card compact', 'data-customer': c.id },
    h('div', { class: 'row spread' }, h('strong', { class: 'customer-name' }, customerName(c)), c.restricted ? h('span', { class: 'badge restricted' }, c.restriction_reason) : null),
    facts([
      ['Email', c.email],
      ['Phone', c.phone_number],
      c.restricted && ['Restricted', when(c.restricted_at)],
      ['Created', when(c.created_at)],
      ['Customer id', h('code', { class: 'id' }, c.id)],
    ]),
    c.restricted && c.restriction_evidence && h('details', {}, h('summary', {}, 'Evidence'), json(c.restriction_evidence)),
    c.restricted && may(role, 'lift_restrictions') && h('button', { class: 'primary small', onclick: lift }, 'Lift restriction'),
  );
}

/** Customers searched by q, optionally only the restricted ones, with each restriction's evidence. */
export async function customersPage(root, params, session) {
  const q = params.get('q') || '';
  const restricted = params.get('restricted') === 'true';
  const reload = () => customersPage(root, params, session);
  const list = loadMoreList(`/customers${query({ q, restricted: restricted ? 'true' : '' })}`, (c) => customerCard(c, session.user.role, reload), restricted ? 'No restricted customers.' : 'No customers found.');
  clear(root,
    h('h2', {}, 'Customers'),
    h('form', { class: 'search row', method: 'get', action: '/merchant/customers' },
      h('input', { name: 'q', value: q, type: 'search', placeholder: 'Name, email, phone or customer id', 'aria-label': 'Search customers' }),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'restricted', value: 'true', checked: restricted }), 'Restricted only'),
      h('button', { class: 'primary', type: 'submit' }, 'Search'),
    ),
    list,
  );
  await list.ready;
}
