// The hosted checkout page (ES modules, no build step). It reads the checkout id from the path
// and the client secret from the query, shows what GET /wallet/v1/checkouts/{id} answers, and
// sends one attempt per "Pay" through POST /wallet/v1/checkouts/{id}/attempts.
import { api, checkoutId, clientSecret } from './api.js';
import { $, clearError, hideForm, node, setStateMessage, show, showError } from './dom.js';
import { buildForm, sendLocation, setBusy } from './form.js';
import { handleCharge, refresh, renderState, showReview } from './outcome.js';
import { FieldError, readAmount, readPaymentMethod } from './payment-input.js';
import { state } from './state.js';
import { renderHeader, renderSummary } from './summary.js';

// How long a payment waits for the location ping before going ahead without it.
const GEO_WAIT_MS = 8000;

function attemptBody() {
  const amount = readAmount();
  const body = { payment_method: readPaymentMethod() };
  if (amount !== undefined) body.amount_cents = amount;
  if (state.selection.kind === 'new' && $('save-method').checked) body.save_payment_method = true;
  return body;
}

function flagField(error) {
  showError(error.message);
  const field = $(error.fieldId);
  field.setAttribute('aria-invalid', 'true');
  field.addEventListener('input', () => field.removeAttribute('aria-invalid'), { once: true });
  field.focus();
}

async function onSubmit(event) {
  event.preventDefault();
  if (state.submitting || !state.selection) return;
  clearError();
  let body;
  try {
    body = attemptBody();
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    return flagField(error);
  }

  setBusy(true);
  try {
    await Promise.race([sendLocation(), new Promise((resolve) => setTimeout(resolve, GEO_WAIT_MS))]);
    const res = await api('POST', '/attempts', body);
    if (res.status === 201 && res.body && res.body.charge) return handleCharge(res.body.charge);
    setBusy(false);
    if (res.status === 202) return showReview();
    showError((res.body && res.body.error) || 'Something went wrong. Please try again.', res.body && res.body.hint);
    // The refusal may be because the checkout moved on (completed, expired): show that instead.
    if (res.status === 422) await refresh();
  } catch {
    setBusy(false);
    showError('We could not reach the payment service.', 'Check your connection and try again.');
  }
}

function fatal(message, detail) {
  $('loading').hidden = true;
  $('wallet').setAttribute('aria-busy', 'false');
  hideForm();
  setStateMessage(message, 'warning', detail ? node('p', { text: detail }) : null);
}

/**
 * Back from 3D Secure, Stripe adds its PaymentIntent (and that intent's secret) to the page's
 * address: they are dropped from the address bar, and the page shows the charge from the wallet API.
 */
const CHALLENGE_PARAMS = ['payment_intent', 'payment_intent_client_secret', 'redirect_status'];
function dropChallengeParams() {
  const params = new URLSearchParams(location.search);
  if (!CHALLENGE_PARAMS.some((name) => params.has(name))) return;
  for (const name of CHALLENGE_PARAMS) params.delete(name);
  const query = params.toString();
  history.replaceState(history.state, '', location.pathname + (query ? '?' + query : '') + location.hash);
}

async function start() {
  dropChallengeParams();
  const again = 'Open the link you were given by the merchant again.';
  if (!checkoutId || !clientSecret) return fatal('This payment link is incomplete.', again);
  let res;
  try {
    res = await api('GET', '');
  } catch {
    return fatal('We could not load this checkout.', 'Check your connection and reload the page.');
  }
  if (res.status === 422) return fatal('This payment link is not valid.', again);
  if (res.status !== 200 || !res.body) return fatal('We could not load this checkout.', 'Reload the page to try again.');

  state.checkout = res.body;
  $('loading').hidden = true;
  $('wallet').setAttribute('aria-busy', 'false');
  if (state.checkout.experience === 'iframe' || window.self !== window.top) document.documentElement.classList.add('embedded');
  renderHeader(state.checkout);
  renderSummary(state.checkout);
  buildForm(state.checkout, {
    onSubmit,
    onDeadline: () => {
      if (!$('pay-form').hidden && !state.submitting) refresh();
    },
  });
  if (renderState(state.checkout)) show('pay-form', true);
}

start();
