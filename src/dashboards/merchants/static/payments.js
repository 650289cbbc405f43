import { api, query } from './api.js';
import { may } from './roles.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, json, money, when } from './dom.js';
import { customerName, paymentMethodText, timelineEntry } from './records.js';
import { loadMoreList } from './list.js';

const checkoutLink = (id, text = id) => h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(id)}` }, text);
const checkoutAmount = (c) => c.fixed_amount_cents ?? c.line_items_total_amount_cents ?? c.balance_amount_cents;

function chargeRow(charge, role, onRefunded) {
  const who = customerName(charge.customer);
  const refund = async () => {
    if (!(await confirmAction(`Refund ${money(charge.amount_cents, charge.currency)} to ${who} in full? This cannot be undone.`, 'Refund'))) return;
    if (await run(() => api.post(`/charges/${encodeURIComponent(charge.id)}/refund`), 'Charge refunded.')) await onRefunded();
  };
  const refundable = may(role, 'refunds') && charge.status === 'succeeded' && charge.transaction_type === 'credit';
  return h('li', { class: 'card compact', 'data-charge': charge.id },
    h('div', { class: 'row spread' },
      h('strong', {}, money(charge.amount_cents, charge.currency), ` ${charge.transaction_type === 'credit' ? 'deposit' : 'withdrawal'}`),
      h('span', { class: `badge ${charge.status}` }, charge.status)),
    facts([
      ['Customer', charge.customer ? `${who} <${charge.customer.email || 'no email'}>` : '—'],
      ['Method', paymentMethodText(charge.payment_method)],
      ['Checkout', charge.checkout_id ? checkoutLink(charge.checkout_id) : '—'],
      charge.failure_code && ['Failure', `${charge.failure_code}: ${charge.failure_message || ''}`],
      ['Created', when(charge.created_at)],
      ['Charge id', h('small', {}, charge.id)],
    ]),
    refundable && h('button', { class: 'danger small', onclick: refund }, 'Refund'),
  );
}

async function showCheckout(root, id, session) {
  const path = `/checkouts/${encodeURIComponent(id)}`;
  const [checkout, timeline] = await Promise.all([run(() => api.get(path)), run(() => api.get(`${path}/timeline`))]);
  if (!checkout || !timeline) return;
  const reload = () => showCheckout(root, id, session);
  clear(root,
    h('p', {}, h('a', { href: '/merchant/payments' }, '← Payments')),
    h('h2', {}, `${checkout.type === 'withdrawal' ? 'Withdrawal' : 'Deposit'} of ${money(checkoutAmount(checkout))}`),
    facts([
      ['State', h('span', { class: `badge ${checkout.state}` }, checkout.state)],
      ['Type / flow', `${checkout.type} / ${checkout.flow}`],
      ['Customer', checkout.charges[0] && checkout.charges[0].customer ? customerName(checkout.charges[0].customer) : checkout.customer_id],
      checkout.blocked_reason && ['Blocked', checkout.blocked_reason],
      ['Created', when(checkout.created_at)],
      ['Expires', when(checkout.expires_at)],
      ['Checkout id', h('small', {}, checkout.id)],
    ]),
    checkout.blocked_evidence && h('details', { class: 'card' }, h('summary', {}, 'Why it was blocked (evidence)'), json(checkout.blocked_evidence)),
    h('h3', {}, 'Charges'),
    checkout.charges.length
      ? h('ul', { class: 'plain list' }, checkout.charges.map((c) => chargeRow({ ...c, checkout_id: checkout.id }, session.user.role, reload)))
      : h('p', { class: 'muted' }, 'No charges.'),
    h('h3', {}, 'Timeline'),
    h('ol', { class: 'timeline' }, timeline.entries.map(timelineEntry)),
  );
}

/** Checkouts and charges, searched by q, each list paged; ?checkout=… opens one checkout. */
export async function paymentsPage(root, params, session) {
  const id = params.get('checkout');
  if (id) return showCheckout(root, id, session);
  const q = params.get('q') || '';
  const reload = () => paymentsPage(root, params, session);
  const checkouts = loadMoreList(`/checkouts${query({ q })}`, (c) =>
    h('li', { class: 'card compact', 'data-checkout': c.id },
      h('div', { class: 'row spread' }, checkoutLink(c.id, `${c.type} of ${money(checkoutAmount(c))}`), h('span', { class: `badge ${c.state}` }, c.state)),
      h('p', { class: 'muted' }, `${c.flow} · ${customerName(c.customer)} · ${when(c.created_at)}`),
    ), 'No checkouts found.');
  const charges = loadMoreList(`/charges${query({ q })}`, (c) => chargeRow(c, session.user.role, reload), 'No charges found.');
  clear(root,
    h('h2', {}, 'Payments'),
    h('form', { class: 'search row', method: 'get', action: '/merchant/payments' },
      h('input', { name: 'q', value: q, type: 'search', placeholder: 'Checkout, charge or customer id, or email', 'aria-label': 'Search payments' }),
      h('button', { class: 'primary', type: 'submit' }, 'Search'),
    ),
    h('div', { class: 'split' },
      h('section', {}, h('h3', {}, q ? `Checkouts matching “${q}”` : 'Checkouts'), checkouts),
      h('section', {}, h('h3', {}, q ? `Charges matching “${q}”` : 'Charges'), charges),
    ),
  );
  await Promise.all([checkouts.ready, charges.ready]);
}
