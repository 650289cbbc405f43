// Checks and normalisation of raw payment details, shared by any processor: they run before
// a charge exists, so a mistyped number never becomes a failed charge.
import { createHmac } from 'node:crypto';
import {
  InvalidPaymentMethod,
  WALLET_PAYMENT_TYPES,
  type BankAccountInput,
  type CardBrand,
  type CardInput,
  type CryptoWalletInput,
  type TokenizeInput,
  type WalletPaymentType,
} from './types';

const CARD_NUMBER_LENGTH = { min: 12, max: 19 };
const CARD_NUMBER = new RegExp(`^\\d{${CARD_NUMBER_LENGTH.min},${CARD_NUMBER_LENGTH.max}}$`);
const ACCOUNT_NUMBER_LENGTH = { min: 4, max: 17 };
const MAX_EXPIRY_YEARS_AHEAD = 50;
const FINGERPRINT_HEX_LENGTH = 32;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): CardBrand {
  const prefix2 = Number(digits.slice(0, 2));
  const prefix3 = Number(digits.slice(0, 3));
  const prefix4 = Number(digits.slice(0, 4));
  const prefix6 = Number(digits.slice(0, 6));
  if (digits.startsWith('4')) return 'visa';
  if ((prefix2 >= 51 && prefix2 <= 55) || (prefix4 >= 2221 && prefix4 <= 2720)) return 'mastercard';
  if (prefix2 === 34 || prefix2 === 37) return 'amex';
  if (
    prefix4 === 6011 ||
    prefix2 === 65 ||
    (prefix3 >= 644 && prefix3 <= 649) ||
    (prefix6 >= 622126 && prefix6 <= 622925)
  ) {
    return 'discover';
  }
  return 'other';
}

/** A card stays valid until the end of its expiry month (UTC): typed in, or saved earlier. */
export function cardExpired(expYear: number, expMonth: number, now: Date): boolean {
  const thisYear = now.getUTCFullYear();
  return expYear < thisYear || (expYear === thisYear && expMonth < now.getUTCMonth() + 1);
}

/**
 * A saved card past its expiry month. Its outcome was decided when it was tokenized, so the
 * expiry is ours to check: attempts refuse it and the wallet does not offer it.
 */
export function savedCardExpired(method: { details: { card?: { exp_year: number; exp_month: number } } }, now: Date): boolean {
  const card = method.details.card;
  return card !== undefined && cardExpired(card.exp_year, card.exp_month, now);
}

export interface NormalizedCard {
  digits: string;
  brand: CardBrand;
  exp_month: number;
  exp_year: number;
}

export function normalizeCard(card: CardInput, now: Date): NormalizedCard {
  // People type card numbers in groups; the groups carry no meaning.
  const digits = typeof card.number === 'string' ? card.number.replace(/[\s-]/g, '') : '';
  if (!CARD_NUMBER.test(digits) || !luhnValid(digits)) {
    throw new InvalidPaymentMethod('invalid_number', 'The card number is not a valid card number.');
  }
  const brand = cardBrand(digits);

  const exp_month = card.exp_month;
  // A two-digit year is read as 20YY, as printed on cards.
  const exp_year = Number.isInteger(card.exp_year) && card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  const thisYear = now.getUTCFullYear();
  if (
    !Number.isInteger(exp_month) ||
    exp_month < 1 ||
    exp_month > 12 ||
    !Number.isInteger(exp_year) ||
    exp_year > thisYear + MAX_EXPIRY_YEARS_AHEAD
  ) {
    throw new InvalidPaymentMethod('invalid_expiry', 'The card expiry date is not valid.');
  }
  if (cardExpired(exp_year, exp_month, now)) {
    throw new InvalidPaymentMethod('invalid_expiry', 'The card has expired.');
  }

  const cvcPattern = brand === 'amex' ? /^\d{4}$/ : brand === 'other' ? /^\d{3,4}$/ : /^\d{3}$/;
  if (typeof card.cvc !== 'string' || !cvcPattern.test(card.cvc)) {
    throw new InvalidPaymentMethod('invalid_cvc', 'The card security code is not valid.');
  }
  return { digits, brand, exp_month, exp_year };
}

export function normalizeBankAccount(bank: BankAccountInput): BankAccountInput {
  const routing_number = String(bank.routing_number ?? '').trim();
  const account_number = String(bank.account_number ?? '').replace(/[\s-]/g, '');
  const { min, max } = ACCOUNT_NUMBER_LENGTH;
  // Only the format is checked, not the ABA checksum, so made-up sandbox routing numbers work.
  if (!/^\d{9}$/.test(routing_number)) {
    throw new InvalidPaymentMethod('invalid_bank_account', 'The routing number must be 9 digits.');
  }
  if (!new RegExp(`^\\d{${min},${max}}$`).test(account_number)) {
    throw new InvalidPaymentMethod(
      'invalid_bank_account',
      `The account number must be ${min} to ${max} digits.`,
    );
  }
  if (bank.account_type !== 'checking' && bank.account_type !== 'savings') {
    throw new InvalidPaymentMethod('invalid_bank_account', 'The account type must be checking or savings.');
  }
  return { routing_number, account_number, account_type: bank.account_type };
}

export function normalizeCryptoWallet(wallet: CryptoWalletInput): CryptoWalletInput {
  const network = String(wallet.network ?? '').trim().toLowerCase();
  let address = String(wallet.address ?? '').trim();
  if (!/^[a-z0-9_-]{2,32}$/.test(network)) {
    throw new InvalidPaymentMethod('invalid_crypto_wallet', 'The crypto network is not valid.');
  }
  if (!/^[A-Za-z0-9]{8,128}$/.test(address)) {
    throw new InvalidPaymentMethod('invalid_crypto_wallet', 'The crypto address is not valid.');
  }
  // Hex addresses are case-insensitive (case is only a checksum); base58 and bech32 ones are not.
  if (/^0x[0-9a-fA-F]+$/.test(address)) address = address.toLowerCase();
  return { network, address };
}

/** A keyed hash of the instrument: equal for the same card or account, useless without the key. */
export function fingerprint(fingerprintKey: string, kind: string, parts: readonly (string | number)[]): string {
  if (!fingerprintKey) throw new TypeError('fingerprintKey must not be empty');
  return createHmac('sha256', fingerprintKey)
    .update([kind, ...parts].join(':'))
    .digest('hex')
    .slice(0, FINGERPRINT_HEX_LENGTH);
}

/**
 * The key velocity limits count an instrument by: for a card, a keyed hash of its number alone.
 * The fingerprint also hashes a card's expiry (a saved card re-entered with a new expiry is a new
 * method), so counting by it would let a card tester try every expiry date of one number. Other
 * instruments are identified by their fingerprint already.
 */
export function numberKey(fingerprintKey: string, checked: CheckedInstrument): string {
  return checked.type === 'card' ? fingerprint(fingerprintKey, 'card-number', [checked.card.digits]) : checked.fingerprint;
}

/** Raw details checked and normalised, with their fingerprint: what is known before any tokenizing. */
export type CheckedInstrument =
  | { type: 'card'; card: NormalizedCard; fingerprint: string }
  | { type: 'bank_account'; bank_account: BankAccountInput; fingerprint: string }
  | { type: 'crypto_wallet'; crypto_wallet: CryptoWalletInput; fingerprint: string }
  | { type: WalletPaymentType; token: string; fingerprint: string };

/**
 * Validates payment details and computes their fingerprint without calling a processor or
 * storing anything, so an attempt can be checked (Luhn, velocity per card) before it is admitted
 * and tokenized. Raises InvalidPaymentMethod for details no charge could succeed with.
 */
export function checkInstrument(input: TokenizeInput, fingerprintKey: string, now: Date): CheckedInstrument {
  switch (input.type) {
    case 'card': {
      const card = normalizeCard(input.card, now);
      return { type: 'card', card, fingerprint: fingerprint(fingerprintKey, 'card', [card.digits, card.exp_year, card.exp_month]) };
    }
    case 'bank_account': {
      const bank = normalizeBankAccount(input.bank_account);
      return { type: 'bank_account', bank_account: bank, fingerprint: fingerprint(fingerprintKey, 'bank', [bank.routing_number, bank.account_number]) };
    }
    case 'crypto_wallet': {
      const wallet = normalizeCryptoWallet(input.crypto_wallet);
      return { type: 'crypto_wallet', crypto_wallet: wallet, fingerprint: fingerprint(fingerprintKey, 'crypto', [wallet.network, wallet.address]) };
    }
    default: {
      const type = input.type as WalletPaymentType;
      if (!WALLET_PAYMENT_TYPES.includes(type) || !('token' in input)) {
        throw new InvalidPaymentMethod('unsupported_payment_type', `Unsupported payment type: ${String(type)}.`);
      }
      if (typeof input.token !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(input.token)) {
        throw new InvalidPaymentMethod('invalid_token', `The ${type} token is not valid.`);
      }
      return { type, token: input.token, fingerprint: fingerprint(fingerprintKey, type, [input.token]) };
    }
  }
}
