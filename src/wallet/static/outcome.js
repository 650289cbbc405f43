// What the page shows once a checkout is not simply waiting for a payment: completed, expired,
// blocked, in review, or a charge still in flight (polled every 2 s until it settles).
import { api } from './api.js';
import { $, hideForm, node, setStateMessage, showError, showResult } from './dom.js';
import { safeReturnUrl } from './format.js';
import { setBusy } from './form.js';
import { formatMoney, IN_FLIGHT, state } from './state.js';

const POLL_MS = 2000;
const REVIEW_POLL_MS = 5000;
const REDIRECT_MS = 3000;

let pollTimer = null;
let redirectTimer = null;

function latestCharge(c, status) {
  const list = status ? c.charges.filter((ch) => ch.status === status) : c.charges;
  return list.length ? list[list.length - 1] : null;
}

/** Shows what the checkout's state allows; answers true when the form may be used. */
export function renderState(c) {
  stopPolling();
  const contact = 'Please contact ' + c.merchant.name + ' for help.';
  if (c.state === 'completed') {
    showCompleted(c, latestCharge(c, 'succeeded'));
  } else if (c.state === 'expired') {
    hideForm();
    setStateMessage('This checkout has expired.', 'warning', node('p', { text: 'Go back to ' + c.merchant.name + ' to start a new one.' }));
  } else if (c.state === 'blocked') {
    hideForm();
    setStateMessage('This checkout cannot be completed.', 'warning', node('p', { text: contact }));
  } else if (c.review && c.review.status === 'declined') {
    hideForm();
    setStateMessage('Your withdrawal request was declined.', 'warning', node('p', { text: contact }));
  } else if (c.state === 'in_review' || (c.review && c.review.status === 'pending')) {
    showReview();
  } else if (latestCharge(c) && IN_FLIGHT.includes(latestCharge(c).status)) {
    showProcessing(latestCharge(c));
  } else {
    return true;
  }
  return false;
}

/** "Return to merchant", followed after 3 s; plain location.href, so in an iframe it stays in the frame. */
function returnBlock(c) {
  const url = safeReturnUrl(c.return_url);
  if (!url) return null;
  clearTimeout(redirectTimer);
  redirectTimer = setTimeout(() => {
    location.href = url;
  }, REDIRECT_MS);
  return node('div', { className: 'return' }, [
    node('a', { href: url, className: 'return-link', 'data-testid': 'return-link', text: 'Return to ' + c.merchant.name }),
    node('p', { className: 'fine-print', text: 'Taking you back in 3 seconds…' }),
  ]);
}

function showCompleted(c, charge) {
  stopPolling();
  hideForm();
  $('state-message').hidden = true;
  const withdrawal = c.type === 'withdrawal';
  const lines = [];
  if (charge) {
    const amount = formatMoney(charge.amount_cents);
    lines.push(withdrawal ? amount + ' is on its way to you from ' + c.merchant.name + '.' : 'You paid ' + amount + ' to ' + c.merchant.name + '.');
    lines.push('Reference: ' + charge.id);
  } else {
    lines.push('This checkout is already complete.');
  }
  showResult('success', withdrawal ? 'Withdrawal complete' : 'Payment complete', lines, returnBlock(c));
}

function showProcessing(charge) {
  hideForm();
  let text = 'We are confirming your payment. This page updates by itself.';
  if (charge.status === 'held') text = 'Your withdrawal was approved and is being sent.';
  else if (state.checkout.type === 'withdrawal') text = 'We are sending your money. This page updates by itself.';
  showResult('pending', 'Processing…', [text]);
  startPolling(charge.id, POLL_MS);
}

export function showReview() {
  hideForm();
  showResult('pending', 'Your withdrawal is being reviewed', [
    'A person at ' + state.checkout.merchant.name + ' will look at it shortly. You can keep this page open or come back later.',
  ]);
  startPolling(null, REVIEW_POLL_MS);
}

/** Back to the form after a failed attempt, with the processor's reason: retries are unlimited. */
function showRetry(charge) {
  stopPolling();
  $('result').hidden = true;
  $('pay-form').hidden = false;
  setBusy(false);
  showError(charge.failure_message || 'The payment did not go through.', 'Check the details or choose another payment method, then try again.');
}

/** The answer to an attempt (201): done, failed (retry), or still moving (poll). */
export function handleCharge(charge) {
  state.checkout.charges.push(charge);
  if (charge.status === 'succeeded') return showCompleted(state.checkout, charge);
  if (IN_FLIGHT.includes(charge.status)) {
    setBusy(false);
    const challenge = charge.next_action && charge.next_action.type === 'redirect_to_url' ? safeReturnUrl(charge.next_action.url) : null;
    if (challenge) return showChallenge(challenge);
    return showProcessing(charge);
  }
  showRetry(charge);
}

/** 3D Secure: the card's issuer confirms the payment on its own page, which brings the customer back here. */
function showChallenge(url) {
  stopPolling();
  hideForm();
  showResult('pending', 'Confirm with your bank', [
    'Your bank asks you to confirm this payment. Taking you there now…',
  ], node('a', { href: url, className: 'return-link', 'data-testid': 'challenge-link', text: 'Continue to your bank' }));
  location.href = url;
}

function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = null;
}

/** Follows one charge (or, with null, a review until its own charge appears). */
function startPolling(chargeId, every) {
  stopPolling();
  const tick = async () => {
    try {
      const res = await api('GET', '');
      if (res.status === 200) {
        state.checkout = res.body;
        if (onPoll(chargeId)) return;
      }
    } catch {
      // A dropped connection is retried on the next tick.
    }
    pollTimer = setTimeout(tick, every);
  };
  pollTimer = setTimeout(tick, every);
}

/** The charge a poll follows: the one named, or (with null) the review's own, once its approval made it. */
function followedCharge(c, chargeId) {
  const id = chargeId || (c.review && c.review.charge_id);
  return id ? c.charges.find((ch) => ch.id === id) : undefined;
}

/** Answers true when polling should stop. */
function onPoll(chargeId) {
  const c = state.checkout;
  // Not the latest charge: one that failed before the review is no outcome of it.
  const charge = followedCharge(c, chargeId);
  if (c.state === 'completed') {
    showCompleted(c, latestCharge(c, 'succeeded') || charge);
    return true;
  }
  if (c.state === 'expired' || c.state === 'blocked' || (c.review && c.review.status === 'declined')) {
    $('result').hidden = true;
    renderState(c);
    return true;
  }
  if (!charge) return false;
  if (charge.status === 'succeeded') {
    showCompleted(c, charge);
    return true;
  }
  if (IN_FLIGHT.includes(charge.status)) {
    // An approved review now has its charge: follow that one from here on.
    if (!chargeId) {
      showProcessing(charge);
      return true;
    }
    return false;
  }
  showRetry(charge);
  return true;
}

/** Re-reads the checkout and shows what its state now allows (after a refusal or at the deadline). */
export async function refresh() {
  try {
    const res = await api('GET', '');
    if (res.status !== 200) return;
    state.checkout = res.body;
    renderState(state.checkout);
  } catch {
    // The next action or poll tries again.
  }
}
