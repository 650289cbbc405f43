// The top of the page: who is asking, and for what (amount, line items, subscription interval).
import { $, node, show } from './dom.js';
import { intervalText } from './format.js';
import { formatMoney } from './state.js';

const TITLES = {
  deposit: 'Add funds',
  preset_deposit: 'Deposit',
  purchase: 'Checkout',
  subscription: 'Subscribe',
  balance_withdrawal: 'Withdraw funds',
  preset_withdrawal: 'Withdrawal',
};

// Products first, then shipping, then tax, whatever order the merchant sent them in.
const KIND_ORDER = { product: 0, shipping: 1, tax: 2 };

export function renderHeader(c) {
  $('merchant-name').textContent = c.merchant.name;
  $('title').textContent = TITLES[c.flow] || (c.type === 'withdrawal' ? 'Withdraw funds' : 'Checkout');
  document.title = $('title').textContent + ' · ' + c.merchant.name;
  $('methods-legend').textContent = c.type === 'withdrawal' ? 'Send the money to' : 'Pay with';
  // Sandbox accounts: a badge, and the test card, so nobody types a real card into a test checkout.
  $('sandbox-notice').hidden = !c.sandbox;
}

function lineItemRow(item) {
  const isProduct = item.kind === 'product';
  const label = item.kind === 'shipping' ? 'Shipping' : item.kind === 'tax' ? 'Tax' : item.name;
  const thumb = isProduct && item.url && /^https:\/\//.test(item.url) ? node('img', { src: item.url, alt: '', className: 'thumb', loading: 'lazy' }) : null;
  // A merchant image that does not load leaves no broken-image box behind.
  if (thumb) thumb.addEventListener('error', () => thumb.remove());
  const detail = isProduct && item.quantity > 1 ? node('span', { className: 'qty', text: item.quantity + ' × ' + formatMoney(item.price_cents) }) : null;
  return node('li', { className: 'line-item ' + item.kind, 'data-kind': item.kind }, [
    thumb,
    node('span', { className: 'name' }, [node('span', { text: label }), detail]),
    node('span', { className: 'amount', text: formatMoney(item.total_amount_cents) }),
  ]);
}

export function renderSummary(c) {
  const list = $('line-items');
  const items = c.line_items.slice().sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  list.replaceChildren(...items.map(lineItemRow));
  list.hidden = items.length === 0;

  if (c.amount_due_cents !== null) {
    $('total-label').textContent = items.length ? 'Total' : c.type === 'withdrawal' ? 'Amount' : 'Amount due';
    $('total').textContent = formatMoney(c.amount_due_cents);
  } else if (c.balance_amount_cents !== null) {
    $('total-label').textContent = 'Available to withdraw';
    $('total').textContent = formatMoney(c.balance_amount_cents);
  }
  show('summary', c.amount_due_cents !== null || c.balance_amount_cents !== null);

  if (c.subscription) {
    const amount = c.amount_due_cents !== null ? formatMoney(c.amount_due_cents) + ' ' : '';
    $('subscription-note').textContent = 'Billed ' + amount + intervalText(c.subscription) + '.';
    show('subscription-note', true);
    // Said before paying: the method is kept and charged again without the customer present.
    $('subscription-renewal').textContent = 'Your card or account is saved for renewals and charged ' + amount + intervalText(c.subscription) + ' until the subscription is cancelled.';
    show('subscription-renewal', true);
  }
}
