// Builds the payment form once per page: amount field, method choice (saved and new), the
// panel of the chosen method, and the pay button's label and busy state.
import { pingLocation } from './api.js';
import { $, clearError, node, show, showError } from './dom.js';
import { describeSaved, METHOD_LABELS, methodForType, WALLET_METHODS } from './format.js';
import { enteredAmount, formatCardNumber, formatExpiry, needsAmount } from './payment-input.js';
import { formatMoney, state } from './state.js';

const isWallet = (selection) => Boolean(selection && selection.kind === 'new' && WALLET_METHODS.includes(selection.method));

export function updatePayButton() {
  const c = state.checkout;
  if (!c || state.submitting) return;
  const button = $('pay-button');
  const cents = enteredAmount();
  const amount = cents ? ' ' + formatMoney(cents) : '';
  let text;
  if (c.type === 'withdrawal') text = 'Withdraw' + amount;
  // The interval is spelled out in the summary; the button stays one line on a phone.
  else if (c.subscription) text = 'Subscribe' + (cents ? ' · ' + formatMoney(cents) : '');
  else text = 'Pay' + amount;
  if (isWallet(state.selection)) text += ' with ' + METHOD_LABELS[state.selection.method];
  button.textContent = text;
  button.disabled = !state.selection;
  button.classList.toggle('wallet-button', isWallet(state.selection));
  if (isWallet(state.selection)) button.dataset.method = state.selection.method;
  else delete button.dataset.method;
}

/** Locks the form while an attempt is on its way, so one click is one attempt. */
export function setBusy(busy) {
  state.submitting = busy;
  const button = $('pay-button');
  button.disabled = busy || !state.selection;
  button.setAttribute('aria-busy', busy ? 'true' : 'false');
  if (busy) button.textContent = 'Processing…';
  else updatePayButton();
  for (const input of $('pay-form').querySelectorAll('input, select')) input.disabled = busy;
}

/** Whether this browser can show the wallet's own sheet; the sandbox token stands in for the sheet. */
function deviceSupports(method) {
  if (method === 'apple_pay') return 'ApplePaySession' in window || 'PaymentRequest' in window;
  if (method === 'google_pay') return 'PaymentRequest' in window;
  return true;
}

function select(next) {
  state.selection = next;
  clearError();
  for (const panel of document.querySelectorAll('.panel')) panel.hidden = true;
  if (next.kind === 'new' && WALLET_METHODS.includes(next.method)) {
    const label = METHOD_LABELS[next.method];
    $('wallet-help').textContent = 'You will confirm with ' + label + '. In the sandbox a test token stands in for the ' + label + ' sheet.';
    show('panel-wallet', true);
  } else if (next.kind === 'new') {
    show('panel-' + next.method, true);
  }
  // A subscription keeps its method for renewals anyway (the summary says so), so no choice is offered.
  show('save-field', next.kind === 'new' && !state.checkout.subscription);
  for (const label of document.querySelectorAll('.method-option')) {
    label.classList.toggle('selected', label.querySelector('input').checked);
  }
  updatePayButton();
}

function methodRadio(value, testId, title, detail, method) {
  const input = node('input', { type: 'radio', name: 'method', value, id: 'm-' + value, 'data-testid': testId, 'data-method': method });
  input.addEventListener('change', () => {
    if (!input.checked) return;
    select(value.startsWith('saved:') ? { kind: 'saved', id: value.slice('saved:'.length), method } : { kind: 'new', method });
  });
  return node('label', { for: 'm-' + value, className: 'method-option', 'data-method': method }, [
    input,
    node('span', { className: 'method-title', text: title }),
    detail ? node('span', { className: 'method-detail', text: detail }) : null,
  ]);
}

function buildMethods(c) {
  const saved = $('saved-methods');
  const tabs = $('method-tabs');
  if (c.saved_payment_methods.length) {
    saved.append(node('p', { className: 'group-label', text: 'Saved' }));
    for (const pm of c.saved_payment_methods) {
      const d = describeSaved(pm);
      saved.append(methodRadio('saved:' + pm.id, 'saved-method-' + pm.id, d.title, d.detail, methodForType(pm.payment_type)));
    }
    tabs.append(node('p', { className: 'group-label', text: 'New' }));
  }
  for (const method of c.payment_options) tabs.append(methodRadio(method, 'method-' + method, METHOD_LABELS[method] || method, null, method));

  // The contract: a lone wallet method opens selected when the device supports it.
  let initial = null;
  if (c.preselected_method && deviceSupports(c.preselected_method)) initial = c.preselected_method;
  else if (c.saved_payment_methods.length) initial = 'saved:' + c.saved_payment_methods[0].id;
  else if (c.payment_options.length) initial = c.payment_options[0];
  if (initial) {
    const radio = document.getElementById('m-' + initial);
    radio.checked = true;
    radio.dispatchEvent(new Event('change'));
  } else {
    showError('No payment method is available for this checkout.', 'Please contact ' + c.merchant.name + '.');
  }
}

function buildAmountField(c) {
  if (!needsAmount()) return;
  $('amount-label').textContent = c.type === 'withdrawal' ? 'Amount to withdraw' : 'Amount to deposit';
  let help = c.balance_amount_cents !== null ? 'You can withdraw up to ' + formatMoney(c.balance_amount_cents) + '.' : 'Enter an amount in US dollars.';
  // A checkout has one review; once used, larger withdrawals need a new checkout.
  if (c.review && c.review_threshold_cents !== null) {
    help += ' This checkout already used its one review: withdraw less than ' + formatMoney(c.review_threshold_cents) + ' here, or ask for a new checkout.';
  }
  $('amount-help').textContent = help;
  $('amount-input').addEventListener('input', () => {
    clearError();
    updatePayButton();
  });
  show('amount-field', true);
}

/**
 * Builds the form for checkout `c` (hidden until the state allows paying). `onDeadline` runs
 * when the checkout's expiry passes, so the page does not keep offering a form the API refuses.
 */
export function buildForm(c, { onSubmit, onDeadline }) {
  buildAmountField(c);
  buildMethods(c);
  show('geo-notice', c.geo_required);
  if (c.subscription) $('pay-button').setAttribute('aria-describedby', 'subscription-note subscription-renewal');
  if (c.expires_at === null) {
    // Expiry pauses while a person reviews the withdrawal.
    $('expires-note').textContent = 'This checkout does not expire while it is in review.';
  } else {
    const expires = new Date(c.expires_at);
    $('expires-note').textContent = 'This checkout expires at ' + expires.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' }) + '.';
    const untilExpiry = expires.getTime() - Date.now();
    if (untilExpiry > 0 && untilExpiry < 86400000) setTimeout(onDeadline, untilExpiry + 1500);
  }

  $('pay-form').addEventListener('submit', onSubmit);
  for (const id of ['card-number', 'card-exp', 'card-cvc', 'bank-routing', 'bank-account', 'crypto-address']) {
    $(id).addEventListener('input', clearError);
  }
  $('card-number').addEventListener('input', formatCardNumber);
  $('card-exp').addEventListener('input', formatExpiry);
  sendLocation();
}

/**
 * Reports the device's location when the merchant requires a geo check, unless a report is still
 * on its way: on load, and again before every payment, since a check more than 30 minutes old
 * (a page left open) would block the checkout for good. A check under 30 minutes old is simply
 * answered again by the service.
 */
export function sendLocation() {
  const c = state.checkout;
  if (!c.geo_required || c.state !== 'open' || state.geoPingInFlight) return state.geoPing;
  state.geoPingInFlight = true;
  state.geoPing = pingLocation().finally(() => {
    state.geoPingInFlight = false;
  });
  return state.geoPing;
}
