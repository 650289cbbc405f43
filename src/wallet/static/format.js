// Pure formatting and parsing helpers of the hosted checkout page (no DOM, no state).

export const WALLET_METHODS = ['apple_pay', 'google_pay', 'paypal', 'venmo'];

export const METHOD_LABELS = {
  credit_card: 'Card',
  bank_account: 'Bank account',
  crypto: 'Crypto',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  paypal: 'PayPal',
  venmo: 'Venmo',
};

const BRAND_LABELS = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', other: 'Card' };

export function money(cents, currency = 'USD') {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}

/** "every month", "every 3 months". */
export function intervalText(subscription) {
  if (!subscription) return '';
  const n = subscription.interval_count;
  return n === 1 ? 'every ' + subscription.interval : 'every ' + n + ' ' + subscription.interval + 's';
}

/** Dollars as typed ("12", "12.5", "1,200.00", "$3") to integer cents, or null; never through floats. */
export function parseCents(text) {
  const cleaned = String(text).trim().replace(/^\$/, '').replace(/,/g, '');
  const m = /^(\d*)(?:\.(\d{0,2}))?$/.exec(cleaned);
  if (!m || (m[1] === '' && !m[2])) return null;
  const cents = Number(m[1] || '0') * 100 + Number((m[2] || '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : null;
}

function capitalize(word) {
  return word ? word.charAt(0).toUpperCase() + word.slice(1) : '';
}

/** A saved method as a person recognises it: "Visa •••• 4242", "Checking •••• 6789". */
export function describeSaved(pm) {
  if (pm.payment_type === 'bank_account' && pm.bank_account) {
    return { title: capitalize(pm.bank_account.account_type || 'bank') + ' •••• ' + pm.bank_account.last4, detail: 'Bank account' };
  }
  if (pm.payment_type === 'crypto_wallet' && pm.crypto_wallet) {
    const tail = pm.crypto_wallet.address_last4 ? ' •••• ' + pm.crypto_wallet.address_last4 : '';
    return { title: capitalize(pm.crypto_wallet.network) + ' wallet' + tail, detail: 'Crypto' };
  }
  const card = pm.card || {};
  const title = (BRAND_LABELS[card.brand] || 'Card') + ' •••• ' + (card.last4 || '');
  const expiry = card.exp_month ? 'Expires ' + String(card.exp_month).padStart(2, '0') + '/' + String(card.exp_year).slice(-2) : '';
  const wallet = pm.payment_type !== 'card' && METHOD_LABELS[pm.payment_type];
  return { title: wallet ? wallet + ' · ' + title : title, detail: expiry };
}

/** The offered identifier a saved method's payment type belongs to. */
export function methodForType(paymentType) {
  if (paymentType === 'card') return 'credit_card';
  if (paymentType === 'crypto_wallet') return 'crypto';
  return paymentType;
}

/** Catches a mistyped card number before a round trip; the service checks it again. */
export function luhnValid(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Only http(s) return URLs are followed, so a stored value can never run script here. */
export function safeReturnUrl(url) {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
