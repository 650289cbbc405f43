import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, json, money, when } from './dom.js';
import { pagedList } from './list.js';
import { timelineEntry } from './records.js';

const checkoutLink = (id) => h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(id)}` }, id);

function chargeRow(charge, onRefunded) {
  const refund = async () => {
    if (!(await confirmAction(`Refund ${money(charge.amount_cents)} of charge ${charge.id} in full?`, 'Refund'))) return;
    if (await run(() => api.post(`/charges/${encodeURIComponent(charge.id)}/refund`), 'Charge refunded.')) await onRefunded();
  };
  const refundable = charge.status === 'succeeded' && charge.transaction_type === 'credit';
  return h('li', { class: 'card compact', 'data-charge': charge.id },
    h('div', { class: 'row spread' }, h('strong', {}, money(charge.amount_cents), ` ${charge.transaction_type}`), h('span', { class: `badge ${charge.status}` }, charge.status)),
    facts([
      ['Charge', charge.id],
      ['Checkout', charge.checkout_id ? checkoutLink(charge.checkout_id) : '—'],
      ['Customer', `${charge.customer.first_name || ''} ${charge.customer.last_name || ''} <${charge.customer.email || ''}>`],
      ['Method', charge.payment_method.payment_type],
      charge.failure_code && ['Failure', `${charge.failure_code}: ${charge.failure_message || ''}`],
      ['Created', when(charge.created_at)],
    ]),
    refundable && h('button', { class: 'danger small', onclick: refund }, 'Refund'),
  );
}

async function showCheckout(root, id) {
  const [checkout, timeline] = await Promise.all([run(() => api.get(`/checkouts/${encodeURIComponent(id)}`)), run(() => api.get(`/checkouts/${encodeURIComponent(id)}/timeline`))]);
  if (!checkout || !timeline) return;
  clear(root,
    h('p', {}, h('a', { href: '/dashboard/checkouts' }, '← Search')),
    h('h2', {}, 'Checkout ', h('code', {}, checkout.id)),
    h('p', {}, h('a', { href: timeline.workflow_url, target: '_blank', rel: 'noopener noreferrer', class: 'button secondary' }, 'Open the workflow in Temporal Web UI')),
    facts([
      ['State', h('span', { class: `badge ${checkout.state}` }, checkout.state)],
      ['Type / flow', `${checkout.type} / ${checkout.flow}`],
      ['Merchant', h('a', { href: `/dashboard/merchants?id=${encodeURIComponent(checkout.merchant_id)}` }, checkout.merchant_id)],
      ['Customer', checkout.customer_id],
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
        h('div', { class: 'row spread' }, checkoutLink(c.id), h('span', { class: `badge ${c.state}` }, c.state)),
        h('p', { class: 'muted' }, `${c.type} · ${c.flow} · ${money(c.fixed_amount_cents ?? c.line_items_total_amount_cents ?? c.balance_amount_cents)} · ${c.customer_id} · ${when(c.created_at)}`),
      ))),
    h('p', { class: 'muted' }, 'No checkouts found.'));
  const charges = pagedList(`/charges${query}`, (rows, reload) => h('ul', { class: 'plain list' }, rows.map((c) => chargeRow(c, reload))), h('p', { class: 'muted' }, 'No charges found.'));
  clear(results,
    h('h3', {}, q ? `Checkouts matching “${q}”` : 'Latest checkouts'),
    h('div', { 'data-list': 'checkouts' }, checkouts.el),
    h('h3', {}, q ? 'Charges matching' : 'Latest charges'),
    h('div', { 'data-list': 'charges' }, charges.el),
  );
  await Promise.all([checkouts.reload(), charges.reload()]);
}
