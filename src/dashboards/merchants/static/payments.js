import { api, query } from './api.js';
import { config } from './config.js';
import { may } from './roles.js';
import { confirmAction, run } from './ui.js';
import { centsOf, clear, facts, h, json, money, when } from './dom.js';
import { customerName, paymentMethodText, timelineEntry } from './records.js';
import { pagedList } from './list.js';

const STATUSES = ['succeeded', 'refunded', 'partially_refunded', 'failed', 'pending', 'processing', 'held', 'voided', 'returned', 'cancelled', 'open', 'in_review', 'expired', 'blocked'];
const TYPES = ['deposit', 'purchase', 'subscription', 'withdrawal'];
const words = (code) => String(code).replace(/_/g, ' ');
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

const paymentLink = (id, text) => h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(id)}` }, text);
const statusBadge = (status) => h('span', { class: `badge ${status}` }, words(status));
const itemsText = (items) => items.map((item) => `${item.quantity} × ${item.name}`).join(', ');


/** The page's filters (the address bar's, amounts in dollars) as the API's query (amounts in cents). */
function apiFilters(params) {
  return {
    q: params.get('q') || '',
    status: params.get('status') || '',
    type: params.get('type') || '',
    created_from: params.get('from') || '',
    created_to: params.get('to') || '',
    amount_min_cents: centsOf(params.get('min')),
    amount_max_cents: centsOf(params.get('max')),
    customer_id: params.get('customer') || '',
  };
}

/** One payment as a table row; each cell names its column, so a phone shows the row as labelled lines. */
function paymentRow(p) {
  const cell = (label, ...content) => h('td', { 'data-label': label }, ...content);
  return h('tr', { 'data-checkout': p.id, 'data-status': p.status },
    cell('Amount', paymentLink(p.id, money(p.amount_cents, p.currency)), p.refunded_cents && p.status !== 'refunded' ? h('small', { class: 'muted' }, ` (${money(p.refunded_cents, p.currency)} refunded)`) : null),
    cell('Status', statusBadge(p.status)),
    cell('Customer', p.customer
      ? h('a', { href: `/merchant/payments${query({ customer: p.customer.id })}`, title: p.customer.email || p.customer.id, class: 'customer-name' }, customerName(p.customer))
      : '—'),
    cell('Method', p.payment_method ? paymentMethodText(p.payment_method) : '—'),
    cell('Bought', p.line_items.length ? itemsText(p.line_items) : h('span', { class: 'muted' }, capital(p.type))),
    cell('Date', h('time', { datetime: p.created_at }, when(p.created_at))),
  );
}

function paymentsTable(results) {
  return h('table', { class: 'payments' },
    h('thead', {}, h('tr', {}, ['Amount', 'Status', 'Customer', 'Method', 'Bought', 'Date'].map((label) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, results.map(paymentRow)),
  );
}

function select(name, label, values, chosen) {
  return h('label', {}, label, h('select', { name }, h('option', { value: '' }, 'Any'), values.map((value) => h('option', { value, selected: value === chosen }, capital(words(value))))));
}

function filterForm(params) {
  const input = (name, label, attrs) => h('label', {}, label, h('input', { name, value: params.get(name) || '', ...attrs }));
  return h('form', { class: 'filters payments', method: 'get', action: '/merchant/payments' },
    h('label', { class: 'wide' }, 'Search', h('input', { name: 'q', value: params.get('q') || '', type: 'search', placeholder: 'Customer name or email, product, or an id', 'aria-label': 'Search payments' })),
    select('status', 'Status', STATUSES, params.get('status')),
    select('type', 'Type', TYPES, params.get('type')),
    input('from', 'From', { type: 'date' }),
    input('to', 'To', { type: 'date' }),
    input('min', 'Min $', { type: 'number', min: '0', step: '0.01', inputmode: 'decimal' }),
    input('max', 'Max $', { type: 'number', min: '0', step: '0.01', inputmode: 'decimal' }),
    params.get('customer') ? h('input', { type: 'hidden', name: 'customer', value: params.get('customer') }) : null,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, 'Search'), h('a', { href: '/merchant/payments' }, 'Clear')),
  );
}

/** The payments, one row each, with their filters, paging and the CSV of what the filters select. */
async function listPayments(root, params) {
  const filters = apiFilters(params);
  const list = pagedList(`/payments${query(filters)}`, paymentsTable, h('p', { class: 'muted' }, 'No payments match these filters.'));
  const csv = `${config.apiBase}/payments.csv${query(filters)}`;
  clear(root,
    h('div', { class: 'row spread' }, h('h2', {}, 'Payments'), h('a', { class: 'button secondary', href: csv, download: '', id: 'export-csv' }, 'Download CSV')),
    filterForm(params),
    params.get('customer') ? h('p', { class: 'muted' }, 'One customer\'s payments. ', h('a', { href: '/merchant/payments' }, 'Show everyone\'s')) : null,
    list.el,
  );
  await list.reload();
}

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
      statusBadge(charge.status)),
    facts([
      ['Method', paymentMethodText(charge.payment_method)],
      charge.failure_code && ['Failure', `${charge.failure_message || words(charge.failure_code)} (${charge.failure_code})`],
      ['Created', when(charge.created_at)],
      ['Charge id', h('code', { class: 'id' }, charge.id)],
    ]),
    refundable && h('button', { class: 'danger small', onclick: refund }, 'Refund'),
  );
}

function lineItems(items, currency) {
  return h('table', { class: 'items' },
    h('thead', {}, h('tr', {}, ['Item', 'Qty', 'Price', 'Total'].map((label) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, items.map((item) => h('tr', {},
      h('td', {}, item.name, item.sku ? h('small', { class: 'muted' }, ` · ${item.sku}`) : null),
      h('td', {}, String(item.quantity)), h('td', {}, money(item.price_cents, currency)), h('td', {}, money(item.total_amount_cents, currency))))),
  );
}

/** One payment: its status, customer, card, what was bought, its refunds with who asked, its charges and its timeline. */
async function showPayment(root, id, session) {
  const path = `/checkouts/${encodeURIComponent(id)}`;
  const [checkout, timeline, found] = await Promise.all([run(() => api.get(path)), run(() => api.get(`${path}/timeline`)), run(() => api.get(`/payments${query({ q: id, limit: 1 })}`))]);
  if (!checkout || !timeline || !found) return;
  const payment = found.results[0];
  const reload = () => showPayment(root, id, session);
  const refunds = timeline.entries.filter((entry) => entry.kind === 'refund');
  const customer = payment && payment.customer;
  clear(root,
    h('p', {}, h('a', { href: '/merchant/payments' }, '← Payments')),
    h('div', { class: 'row spread' },
      h('h2', {}, `${capital(payment ? payment.type : checkout.type)} of ${money(payment ? payment.amount_cents : null, checkout.currency)}`),
      payment && statusBadge(payment.status)),
    facts([
      ['Customer', customer ? [h('span', { class: 'customer-name' }, customerName(customer)), customer.email ? ` <${customer.email}>` : ''] : checkout.customer_id],
      ['Method', payment && payment.payment_method ? paymentMethodText(payment.payment_method) : '—'],
      payment && payment.refunded_cents ? ['Refunded', money(payment.refunded_cents, checkout.currency)] : null,
      checkout.blocked_reason && ['Blocked', words(checkout.blocked_reason)],
      ['Flow', words(checkout.flow)],
      ['Created', when(checkout.created_at)],
      ['Ids', h('small', {}, [checkout.id, customer && customer.id].filter(Boolean).map((id, i) => [i ? ' · ' : '', h('code', { class: 'id' }, id)]))],
    ]),
    checkout.blocked_evidence && h('details', { class: 'card' }, h('summary', {}, 'Why it was blocked (evidence)'), json(checkout.blocked_evidence)),
    checkout.line_items.length ? [h('h3', {}, 'What was bought'), lineItems(checkout.line_items, checkout.currency)] : null,
    refunds.length ? [h('h3', {}, 'Refunds'), h('ol', { class: 'timeline', id: 'refunds' }, refunds.map(timelineEntry))] : null,
    h('h3', {}, 'Charges'),
    checkout.charges.length
      ? h('ul', { class: 'plain list' }, checkout.charges.map((c) => chargeRow(c, session.user.role, reload)))
      : h('p', { class: 'muted' }, 'No charges yet.'),
    h('h3', {}, 'Timeline'),
    h('ol', { class: 'timeline', id: 'timeline' }, timeline.entries.map(timelineEntry)),
  );
}

/** The payments table; ?checkout=… opens one payment. */
export async function paymentsPage(root, params, session) {
  const id = params.get('checkout');
  if (id) return showPayment(root, id, session);
  return listPayments(root, params);
}
