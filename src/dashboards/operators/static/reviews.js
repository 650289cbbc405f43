import { api, query } from './api.js';
import { confirmAction, run } from './ui.js';
import { centsOf, clear, facts, h, money, when } from './dom.js';
import { pagedList } from './list.js';
import { customerName, evidenceView, paymentMethodText } from './records.js';
import { merchantLink, withId } from './names.js';

const STATUSES = ['pending', 'approved', 'declined'];
/** How long a review has waited, as the filter offers it (minutes). */
const AGES = [['', 'Any time'], ['15', '15 minutes or more'], ['60', '1 hour or more'], ['240', '4 hours or more'], ['1440', '1 day or more']];

function reviewCard(review, reload) {
  const c = review.customer;
  const decide = (decision) => async () => {
    const verb = decision === 'approve' ? 'Approve' : 'Decline';
    const ok = await confirmAction(`${verb} the withdrawal of ${money(review.amount_cents)} for ${c ? customerName(c) : review.customer_id} (${review.merchant_name || review.merchant_id})?`, verb);
    if (!ok) return;
    await run(() => api.post(`/reviews/${encodeURIComponent(review.id)}/${decision}`), `Review ${decision === 'approve' ? 'approved' : 'declined'}.`);
    await reload();
  };
  return h('article', { class: 'card', 'data-review': review.id },
    h('header', { class: 'row spread' }, h('h3', {}, money(review.amount_cents), ' withdrawal'), h('span', { class: `badge ${review.status}` }, review.status)),
    facts([
      ['Merchant', merchantLink(review.merchant_id, review.merchant_name)],
      ['Customer', c ? withId(`${customerName(c)}${c.email ? ` <${c.email}>` : ''}`, c.id) : review.customer_id],
      ['Restricted', c && c.restriction_reason ? c.restriction_reason : 'no'],
      ['Payment method', paymentMethodText(review.payment_method)],
      ['Checkout', h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(review.checkout_id)}` }, h('code', { class: 'id' }, review.checkout_id))],
      ['Requested', when(review.created_at)],
      review.status !== 'pending' && ['Decided', `${review.status} by ${review.decided_by || 'unknown'} at ${when(review.decided_at)}`],
    ]),
    evidenceView(review.evidence),
    review.status === 'pending' &&
      h('div', { class: 'row actions' },
        h('button', { class: 'primary', onclick: decide('approve') }, 'Approve'),
        h('button', { class: 'danger', onclick: decide('decline') }, 'Decline'),
      ),
  );
}

/** The filters: merchant (by name), amount in dollars, how long a review has waited. */
function filterForm(params, status, merchants) {
  const amount = (name, label) => h('label', {}, label, h('input', { name, type: 'number', min: '0', step: '0.01', inputmode: 'decimal', value: params.get(name) || '' }));
  return h('form', { class: 'filters', method: 'get', action: '/dashboard/reviews' },
    h('input', { type: 'hidden', name: 'status', value: status }),
    h('label', {}, 'Merchant', h('select', { name: 'merchant_id' }, h('option', { value: '' }, 'Every merchant'),
      merchants.map((m) => h('option', { value: m.id, selected: m.id === params.get('merchant_id') }, m.name)))),
    amount('min', 'Min $'),
    amount('max', 'Max $'),
    h('label', {}, 'Waiting', h('select', { name: 'age' }, AGES.map(([value, label]) => h('option', { value, selected: value === (params.get('age') || '') }, label)))),
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, 'Filter'), h('a', { href: `/dashboard/reviews?status=${status}` }, 'Clear')),
  );
}

export async function reviewsPage(root, params) {
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : 'pending';
  // The queue oldest first; decisions newest first, so the latest show first.
  const order = status === 'pending' ? 'oldest' : 'newest';
  const filters = { merchant_id: params.get('merchant_id') || '', min_amount_cents: centsOf(params.get('min')), max_amount_cents: centsOf(params.get('max')), min_age_minutes: params.get('age') || '' };
  const merchants = (await run(() => api.get('/merchants?limit=200'))) || { results: [] };
  const tabs = h('nav', { class: 'tabs' });
  const showCounts = (counts) => clear(tabs, STATUSES.map((s) => {
    const href = `/dashboard/reviews${query({ ...Object.fromEntries(params), status: s })}`;
    return h('a', { href, 'aria-current': s === status ? 'page' : null, 'data-status': s }, `${s[0].toUpperCase()}${s.slice(1)}${counts ? ` (${counts[s]})` : ''}`);
  }));
  showCounts(null);
  const list = pagedList(`/reviews${query({ ...filters, status, limit: 25, order })}`,
    (rows, reload) => h('div', { class: 'list' }, rows.map((r) => reviewCard(r, reload))),
    h('p', { class: 'muted' }, status === 'pending' ? 'No reviews waiting. New withdrawals that need review appear here.' : 'Nothing here yet.'),
    (page) => showCounts(page.counts));
  clear(root,
    h('h2', {}, 'Review queue'),
    h('p', { class: 'muted' }, 'Withdrawals paused for review. Approving creates the charge and places the hold; declining blocks the checkout.'),
    filterForm(params, status, merchants.results),
    tabs,
    list.el,
  );
  await list.reload();
}
