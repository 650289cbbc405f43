import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, json, money, when } from './dom.js';
import { pagedList } from './list.js';
import { customerName, paymentMethodText, timelineEntry } from './records.js';
import { idLine, merchantLink, withId } from './names.js';

const checkoutLink = (id) => h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(id)}` }, h('code', { class: 'id' }, id));

function chargeRow(charge, onRefunded) {
  const refund = async () => {
    if (!(await confirmAction(`Refund ${money(charge.amount_cents)} to ${customerName(charge.customer)} in full (charge ${charge.id})?`, 'Refund'))) return;
    if (await run(() => api.post(`/charges/${encodeURIComponent(charge.id)}/refund`), 'Charge refunded.')) await onRefunded();
  };
  const refundable = charge.status === 'succeeded' && charge.transaction_type === 'credit';
  return h('li', { class: 'card compact', 'data-charge': charge.id },
    h('div', { class: 'row spread' }, h('strong', {}, money(charge.amount_cents), ` ${charge.transaction_type}`), h('span', { class: `badge ${charge.status}` }, charge.status)),
    facts([
      charge.merchant_id && ['Merchant', merchantLink(charge.merchant_id, charge.merchant_name)],
      ['Customer', withId(`${customerName(charge.customer)}${charge.customer.email ? ` <${charge.customer.email}>` : ''}`, charge.customer.id)],
      ['Method', paymentMethodText(charge.payment_method)],
      ['Checkout', charge.checkout_id ? checkoutLink(charge.checkout_id) : '—'],
      ['Charge', h('code', { class: 'id' }, charge.id)],
      charge.failure_code && ['Failure', `${charge.failure_code}: ${charge.failure_message || ''}`],
      ['Created', when(charge.created_at)],
    ]),
    refundable && h('button', { class: 'danger small', onclick: refund }, 'Refund'),
  );
}

/** The checkout's own workflow once someone tried to pay, its expiry workflow before, or a note that Temporal has none. */
function workflowLink(workflow) {
  if (!workflow) return h('p', { class: 'muted', 'data-workflow': 'none' }, 'Temporal has no workflow for this checkout: none has started, or it ended long ago and was removed.');
  const expiry = workflow.kind === 'expiry';
  return h('p', { 'data-workflow': workflow.kind },
    h('a', { href: workflow.url, target: '_blank', rel: 'noopener noreferrer', class: 'button secondary' }, expiry ? 'Open the expiry workflow in Temporal Web UI' : 'Open the workflow in Temporal Web UI'),
    expiry && h('span', { class: 'muted' }, " Nobody has tried to pay yet: the checkout's own workflow starts with the first attempt."),
  );
}

async function showCheckout(root, id) {
  const [checkout, timeline] = await Promise.all([run(() => api.get(`/checkouts/${encodeURIComponent(id)}`)), run(() => api.get(`/checkouts/${encodeURIComponent(id)}/timeline`))]);
  if (!checkout || !timeline) return;
  clear(root,
    h('p', {}, h('a', { href: '/dashboard/checkouts' }, '← Search')),
    h('h2', {}, 'Checkout ', h('code', { class: 'id' }, checkout.id)),
    workflowLink(timeline.workflow),
    facts([
      ['State', h('span', { class: `badge ${checkout.state}` }, checkout.state)],
      ['Type / flow', `${checkout.type} / ${checkout.flow}`],
      ['Merchant', merchantLink(checkout.merchant_id, checkout.merchant_name)],
      ['Customer', checkout.customer ? withId(`${customerName(checkout.customer)}${checkout.customer.email ? ` <${checkout.customer.email}>` : ''}`, checkout.customer_id) : checkout.customer_id],
      ['Amount', money(checkout.fixed_amount_cents ?? checkout.line_items_total_amount_cents ?? checkout.balance_amount_cents)],
      checkout.blocked_reason && ['Blocked', checkout.blocked_reason],
      ['Created', when(checkout.created_at)],
      ['Expires', when(checkout.expires_at)],
    ]),
    checkout.blocked_evidence && h('details', { class: 'card' }, h('summary', {}, 'Why it was blocked (evidence)'), json(checkout.blocked_evidence)),
    h('h3', {}, 'Charges'),
    checkout.charges.length ? h('ul', { class: 'plain list' }, checkout.charges.map((c) => chargeRow({ ...c, checkout_id: checkout.id }, () => showCheckout(root, id)))) : h('p', { class: 'muted' }, 'No charges.'),
    h('h3', {}, 'Timeline'),
    h('ol', { class: 'timeline' }, timeline.entries.map(timelineEntry)),
  );
}

export async function checkoutsPage(root, params) {
  const id = params.get('id');
  if (id) return showCheckout(root, id);
  const q = params.get('q') || '';
  const results = h('div', {});
  clear(root,
    h('h2', {}, 'Checkouts and charges'),
    h('form', { class: 'search row', method: 'get', action: '/dashboard/checkouts' },
      h('input', { name: 'q', value: q, type: 'search', placeholder: 'Checkout, charge, customer or merchant id, or email', 'aria-label': 'Search' }),
      h('button', { class: 'primary', type: 'submit' }, 'Search'),
    ),
    results,
  );
  const query = q ? `?q=${encodeURIComponent(q)}&limit=25` : '?limit=25';
  const checkouts = pagedList(`/checkouts${query}`, (rows) =>
    h('ul', { class: 'plain list' }, rows.map((c) =>
      h('li', { class: 'card compact', 'data-checkout': c.id },
        h('div', { class: 'row spread' },
          h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(c.id)}` }, `${money(c.fixed_amount_cents ?? c.line_items_total_amount_cents ?? c.balance_amount_cents)} ${c.type}`),
          h('span', { class: `badge ${c.state}` }, c.state)),
        h('p', {}, h('span', { class: 'customer-name' }, c.customer ? customerName(c.customer) : c.customer_id), ' at ', h('span', { class: 'merchant-name' }, c.merchant_name || c.merchant_id)),
        h('p', { class: 'muted' }, `${c.flow} · ${when(c.created_at)} · `, idLine([c.id, c.customer_id, c.merchant_id])),
      ))),
    h('p', { class: 'muted' }, 'No checkouts found.'));
  const charges = pagedList(`/charges${query}`, (rows, reload) => h('ul', { class: 'plain list' }, rows.map((c) => chargeRow(c, reload))), h('p', { class: 'muted' }, 'No charges found.'));
  clear(results,
    // What was typed is shown as typed (often an id), breakable anywhere on a phone.
    h('h3', {}, q ? ['Checkouts matching ', h('code', { class: 'id' }, q)] : 'Latest checkouts'),
    h('div', { 'data-list': 'checkouts' }, checkouts.el),
    h('h3', {}, q ? 'Charges matching' : 'Latest charges'),
    h('div', { 'data-list': 'charges' }, charges.el),
  );
  await Promise.all([checkouts.reload(), charges.reload()]);
}
