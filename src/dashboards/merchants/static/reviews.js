import { api, query } from './api.js';
import { may } from './roles.js';
import { run } from './ui.js';
import { clear, facts, h, money, when } from './dom.js';
import { customerName, evidenceView, paymentMethodText } from './records.js';
import { loadMoreList } from './list.js';

/**
 * The decision takes two presses: the first turns the buttons into one that names the amount and
 * the customer ("Approve $25.00 to Ada Lovelace") and a Cancel; only that second button decides.
 */
function decisionButtons(review, reload) {
  const who = customerName(review.customer);
  const box = h('div', { class: 'row actions' });
  const ask = (decision) => () => {
    const verb = decision === 'approve' ? 'Approve' : 'Decline';
    const sure = h('button', { class: decision === 'approve' ? 'primary' : 'danger', 'data-confirm': decision }, `${verb} ${money(review.amount_cents)} to ${who}`);
    sure.addEventListener('click', async () => {
      sure.disabled = true;
      if (await run(() => api.post(`/reviews/${encodeURIComponent(review.id)}/${decision}`), `Review ${decision === 'approve' ? 'approved' : 'declined'}.`)) await reload();
      else sure.disabled = false;
    });
    clear(box, sure, h('button', { class: 'secondary', onclick: show }, 'Cancel'));
  };
  const show = () => clear(box, h('button', { class: 'primary', onclick: ask('approve') }, 'Approve'), h('button', { class: 'danger', onclick: ask('decline') }, 'Decline'));
  show();
  return box;
}

function reviewCard(review, role, reload) {
  const c = review.customer;
  return h('li', { class: 'card', 'data-review': review.id },
    h('div', { class: 'row spread' }, h('h3', {}, money(review.amount_cents), ' withdrawal to ', customerName(c)), h('span', { class: `badge ${review.status}` }, review.status)),
    facts([
      ['Customer', c ? `${customerName(c)} <${c.email || 'no email'}>` : review.customer_id],
      ['Restricted', c && c.restriction_reason ? c.restriction_reason : 'no'],
      ['Payment method', paymentMethodText(review.payment_method)],
      ['Checkout', [h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(review.checkout_id)}` }, 'Open the payment'), ' ', h('code', { class: 'id muted' }, review.checkout_id)]],
      ['Requested', when(review.created_at)],
      review.status !== 'pending' && ['Decided', `${review.status} by ${review.decided_by || 'unknown'} at ${when(review.decided_at)}`],
    ]),
    evidenceView(review.evidence),
    review.status === 'pending' && may(role, 'decide_reviews') && decisionButtons(review, reload),
  );
}

/** The withdrawal queue (oldest first) and the decisions (newest first), paged. */
export async function reviewsPage(root, params, session) {
  const status = ['pending', 'approved', 'declined'].includes(params.get('status')) ? params.get('status') : 'pending';
  const reload = () => reviewsPage(root, params, session);
  const list = loadMoreList(`/reviews${query({ status, order: status === 'pending' ? 'oldest' : 'newest' })}`, (r) => reviewCard(r, session.user.role, reload),
    status === 'pending' ? 'No withdrawals waiting for review.' : 'Nothing here yet.');
  clear(root,
    h('h2', {}, 'Withdrawal reviews'),
    h('p', { class: 'muted' }, 'Withdrawals paused for review. Approving creates the charge and places the hold; declining blocks the checkout.'),
    h('nav', { class: 'tabs' }, ['pending', 'approved', 'declined'].map((s) => h('a', { href: `/merchant/reviews?status=${s}`, 'aria-current': s === status ? 'page' : null }, s[0].toUpperCase() + s.slice(1)))),
    list,
  );
  await list.ready;
}
