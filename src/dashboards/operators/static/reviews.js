import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, money, when } from './dom.js';
import { pagedList } from './list.js';
import { evidenceView, paymentMethodText } from './records.js';

function reviewCard(review, reload) {
  const c = review.customer;
  const decide = (decision) => async () => {
    const verb = decision === 'approve' ? 'Approve' : 'Decline';
    const ok = await confirmAction(`${verb} the withdrawal of ${money(review.amount_cents)} for ${c ? `${c.first_name || ''} ${c.last_name || ''}`.trim() || c.email : review.customer_id}?`, verb);
    if (!ok) return;
    await run(() => api.post(`/reviews/${encodeURIComponent(review.id)}/${decision}`), `Review ${decision === 'approve' ? 'approved' : 'declined'}.`);
    await reload();
  };
  return h('article', { class: 'card', 'data-review': review.id },
    h('header', { class: 'row spread' }, h('h3', {}, money(review.amount_cents), ' withdrawal'), h('span', { class: `badge ${review.status}` }, review.status)),
    facts([
      ['Customer', c ? `${c.first_name || ''} ${c.last_name || ''} <${c.email || 'no email'}>` : review.customer_id],
      ['Restricted', c && c.restriction_reason ? c.restriction_reason : 'no'],
      ['Payment method', paymentMethodText(review.payment_method)],
      ['Merchant', review.merchant_id],
      ['Checkout', h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(review.checkout_id)}` }, review.checkout_id)],
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

export async function reviewsPage(root, params) {
  const status = params.get('status') || 'pending';
  // The queue oldest first; decisions newest first, so the latest show first.
  const order = status === 'pending' ? 'oldest' : 'newest';
  const list = pagedList(`/reviews?status=${encodeURIComponent(status)}&limit=25&order=${order}`,
    (rows, reload) => h('div', { class: 'list' }, rows.map((r) => reviewCard(r, reload))),
    h('p', { class: 'muted' }, status === 'pending' ? 'No reviews waiting. New withdrawals that need review appear here.' : 'Nothing here yet.'));
  clear(root,
    h('h2', {}, 'Review queue'),
    h('p', { class: 'muted' }, 'Withdrawals paused for review. Approving creates the charge and places the hold; declining blocks the checkout.'),
    h('nav', { class: 'tabs' }, ['pending', 'approved', 'declined'].map((s) => h('a', { href: `/dashboard/reviews?status=${s}`, 'aria-current': s === status ? 'page' : null }, s[0].toUpperCase() + s.slice(1)))),
    list.el,
  );
  await list.reload();
}
