// Reads what the customer typed into the attempt body's pieces, with a first check of each field
// so obvious slips are caught before a round trip (the service validates everything again).
import { $ } from './dom.js';
import { luhnValid, parseCents } from './format.js';
import { formatMoney, state } from './state.js';

/** A field the customer must fix; the message is shown and the field focused. */
export class FieldError extends Error {
  constructor(message, fieldId) {
    super(message);
    this.fieldId = fieldId;
  }
}

export function needsAmount() {
  return state.checkout.amount_due_cents === null;
}

/** The amount the button shows: the preset or total, or what is typed so far (null if unusable). */
export function enteredAmount() {
  return needsAmount() ? parseCents($('amount-input').value) : state.checkout.amount_due_cents;
}

export function readAmount() {
  if (!needsAmount()) return undefined;
  const cents = parseCents($('amount-input').value);
  if (!cents || cents < 1) throw new FieldError('Enter an amount, for example 25.00.', 'amount-input');
  const ceiling = state.checkout.balance_amount_cents;
  if (ceiling !== null && cents > ceiling) throw new FieldError('You can withdraw up to ' + formatMoney(ceiling) + '.', 'amount-input');
  return cents;
}

/** Stands in for the token a wallet's own sheet would hand back. */
function sandboxToken() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return 'tok_sandbox_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function readCard() {
  const number = $('card-number').value.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) throw new FieldError('Enter a valid card number.', 'card-number');
  const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec($('card-exp').value);
  const month = exp ? Number(exp[1]) : 0;
  if (!exp || month < 1 || month > 12) throw new FieldError('Enter the expiry date as MM/YY.', 'card-exp');
  const year = exp[2].length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]);
  const cvc = $('card-cvc').value.trim();
  if (!/^\d{3,4}$/.test(cvc)) throw new FieldError('Enter the 3 or 4 digit security code.', 'card-cvc');
  return { type: 'credit_card', card: { number, exp_month: month, exp_year: year, cvc } };
}

function readBankAccount() {
  const routing = $('bank-routing').value.trim();
  const account = $('bank-account').value.replace(/[\s-]/g, '');
  if (!/^\d{9}$/.test(routing)) throw new FieldError('The routing number must be 9 digits.', 'bank-routing');
  if (!/^\d{4,17}$/.test(account)) throw new FieldError('Enter your account number (digits only).', 'bank-account');
  return { type: 'bank_account', bank_account: { routing_number: routing, account_number: account, account_type: $('bank-type').value } };
}

function readCryptoWallet() {
  const address = $('crypto-address').value.trim();
  if (!address) throw new FieldError('Enter your wallet address.', 'crypto-address');
  return { type: 'crypto', crypto_wallet: { address, network: $('crypto-network').value } };
}

/** The attempt's payment_method for the current selection. */
export function readPaymentMethod() {
  const selection = state.selection;
  if (selection.kind === 'saved') return { saved_payment_method_id: selection.id };
  if (selection.method === 'credit_card') return readCard();
  if (selection.method === 'bank_account') return readBankAccount();
  if (selection.method === 'crypto') return readCryptoWallet();
  return { type: selection.method, token: sandboxToken() };
}

/** Keeps a typed card number in groups of four, as printed. */
export function formatCardNumber(event) {
  const input = event.target;
  const grouped = input.value.replace(/\D/g, '').slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
  if (grouped !== input.value) input.value = grouped;
}

/** Inserts the slash of MM/YY while typing (and stays out of the way while deleting). */
export function formatExpiry(event) {
  const input = event.target;
  if (event.inputType && event.inputType.startsWith('delete')) return;
  const digits = input.value.replace(/\D/g, '').slice(0, 6);
  const formatted = digits.length > 2 ? digits.slice(0, 2) + '/' + digits.slice(2) : digits;
  if (formatted !== input.value) input.value = formatted;
}
