import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, when } from './dom.js';
import { pagedList } from './list.js';
import { customerName, evidenceView } from './records.js';
import { merchantLink } from './names.js';

function customerCard(c, reload) {
  const lift = async () => {
    if (!(await confirmAction(`Lift the restriction (${c.restriction_reason}) on ${customerName(c)} (${c.merchant_name || c.merchant_id})?`, 'Unrestrict'))) return;
    if (await run(() => api.post(`/customers/${encodeURIComponent(c.id)}/unrestrict`), 'Restriction lifted.')) await reload();
  };
  return h('li', { class: 'card compact', 'data-customer': c.id },
    h('div', { class: 'row spread' }, h('strong', { class: 'customer-name' }, customerName(c)), h('span', { class: 'badge restricted' }, c.restriction_reason)),
    facts([['Merchant', merchantLink(c.merchant_id, c.merchant_name)], ['Email', c.email], ['Restricted', when(c.restricted_at)], ['Customer id', h('code', { class: 'id' }, c.id)]]),
    c.restriction_evidence && evidenceView(c.restriction_evidence),
    h('button', { class: 'primary small', onclick: lift }, 'Unrestrict'),
  );
}

export async function customersPage(root) {
  const list = pagedList('/customers/restricted?limit=50', (rows, reload) => h('ul', { class: 'plain list' }, rows.map((c) => customerCard(c, reload))), h('p', { class: 'muted' }, 'No restricted customers.'));
  clear(root, h('h2', {}, 'Restricted customers'), h('p', { class: 'muted' }, 'Customers a KYC check restricted. Lifting a restriction lets them pay again.'), list.el);
  await list.reload();
}
