// The sandbox processors (alpha, beta, gamma). Each instrument's outcome is decided once, at
// tokenize time, and written into the opaque token (`sbx_<behaviour>_<random>`), so charges,
// payouts and refunds never need, and nothing ever stores, a full card or account number.
import { createHash, randomBytes } from 'node:crypto';
import { REFUND_CAPABLE_PROCESSORS, SANDBOX_PROCESSORS } from '../domain/settings';
import type { Db } from '../storage/db';
import { findSandboxCall, recordSandboxCall } from '../storage/sandbox-processor-calls';
import { checkInstrument } from './instruments';
import {
  type ChargeOutcome,
  type PaymentType,
  type PayoutRequest,
  type Processor,
  type TokenizedMethod,
  type TokenizeInput,
} from './types';

// The sandboxes' names, among the values of a merchant's card_processor setting.
export type ProcessorName = (typeof SANDBOX_PROCESSORS)[number];

/** A sandbox deposit of exactly this amount succeeds and is then refunded (the contract's 1.08 USD). */
export const SANDBOX_AUTO_REFUND_AMOUNT_CENTS = 108;

export const FAILURE_MESSAGES = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The payment method has insufficient funds.',
  expired_card: 'The card has expired.',
  account_closed: 'The bank account is closed.',
  transaction_rejected: 'The crypto network rejected the transaction.',
  processing_error: 'The payment could not be processed.',
} as const;
export type FailureCode = keyof typeof FAILURE_MESSAGES;

const BEHAVIOURS = [
  'approve', // succeeds (cards, wallet tokens)
  'threeds', // succeeds after 3D Secure
  'norefund', // succeeds, but the refund is declined
  'mitdecline', // succeeds while the customer pays; merchant-initiated charges (renewals) are declined
  'decline',
  'nofunds',
  'expired',
  'bankok', // pending, then settles succeeded
  'bankfail', // pending, then fails at settlement
  'cryptook',
  'cryptofail',
] as const;
type Behaviour = (typeof BEHAVIOURS)[number];

const CARD_BEHAVIOURS: Readonly<Record<string, Behaviour>> = {
  '4242424242424242': 'approve',
  '4000000000000002': 'decline',
  '4000000000009995': 'nofunds',
  '4000000000000069': 'expired',
  '4000000000003220': 'threeds',
  // Our addition: lets the contract's "Refund failed" answer be exercised.
  '4000000000005126': 'norefund',
  // Our addition: the checkout's charge succeeds, every subscription renewal is declined (dunning).
  '4000000000000341': 'mitdecline',
};

/** The sandbox's test card numbers: refused for production accounts, which must not use sandbox behaviour. */
export const SANDBOX_TEST_CARDS: readonly string[] = Object.freeze(Object.keys(CARD_BEHAVIOURS));

const CARD_FAILURES: Partial<Record<Behaviour, FailureCode>> = {
  decline: 'card_declined',
  nofunds: 'insufficient_funds',
  expired: 'expired_card',
};
const SETTLEMENT_FAILURES: Partial<Record<Behaviour, FailureCode>> = {
  bankfail: 'account_closed',
  cryptofail: 'transaction_rejected',
};

function railOf(behaviour: Behaviour): 'card' | 'bank_account' | 'crypto_wallet' {
  if (behaviour.startsWith('bank')) return 'bank_account';
  if (behaviour.startsWith('crypto')) return 'crypto_wallet';
  return 'card';
}

function isCardNetwork(paymentType: PaymentType): boolean {
  return paymentType !== 'bank_account' && paymentType !== 'crypto_wallet';
}

function readToken(token: string, paymentType?: PaymentType): Behaviour | undefined {
  const match = /^sbx_([a-z]+)_[0-9a-f]{24}$/.exec(token);
  const behaviour = BEHAVIOURS.find((known) => known === match?.[1]);
  if (!behaviour) return undefined;
  // Wallet tokens are card-network tokens, so they share the card rail.
  if (paymentType && railOf(behaviour) !== (isCardNetwork(paymentType) ? 'card' : paymentType)) return undefined;
  return behaviour;
}

function failure(code: FailureCode) {
  return { failure_code: code, failure_message: FAILURE_MESSAGES[code] };
}

function assertAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents < 1) {
    throw new RangeError(`amount_cents must be a positive integer, got ${amountCents}`);
  }
}

const AUTH_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface SandboxOptions {
  /** Clock for card expiry checks; injectable for tests. */
  now?: () => Date;
  /**
   * Where the sandbox keeps the charges and payouts it was sent (sandbox_processor_calls), as a
   * real processor keeps its own: a call with an idempotency key is recorded before it is answered,
   * so lookupCharge answers truthfully after the caller crashed. Without it nothing is recorded.
   */
  db?: Db;
}

export function createSandboxProcessor(name: ProcessorName, options: SandboxOptions = {}): Processor {
  const now = options.now ?? (() => new Date());
  const { db } = options;

  /** The call's outcome, recorded under its idempotency key first (a repeated call gets the recorded one). */
  function answered(operation: 'charge' | 'payout', idempotencyKey: string | undefined, result: ChargeOutcome): Promise<ChargeOutcome> {
    if (!db || idempotencyKey === undefined) return Promise.resolve(result);
    return recordSandboxCall(db, name, idempotencyKey, operation, result);
  }
  const supportsRefunds = REFUND_CAPABLE_PROCESSORS.has(name);

  // With an idempotency key the ids are derived from it, so a retried call answers the same.
  function entropy(purpose: string, idempotencyKey?: string): Buffer {
    if (idempotencyKey === undefined) return randomBytes(32);
    return createHash('sha256').update(`${name}:${purpose}:${idempotencyKey}`).digest();
  }

  function tokenizeFor(input: TokenizeInput, fingerprintKey: string, testValues: boolean): TokenizedMethod {
    const token = (behaviour: Behaviour) => `sbx_${behaviour}_${randomBytes(12).toString('hex')}`;
    const checked = checkInstrument(input, fingerprintKey, now());
    switch (checked.type) {
      case 'card': {
        const { digits, brand, exp_month, exp_year } = checked.card;
        return {
          payment_type: 'card',
          fingerprint: checked.fingerprint,
          processor_token: token((testValues && CARD_BEHAVIOURS[digits]) || 'approve'),
          details: { card: { brand, last4: digits.slice(-4), exp_month, exp_year, funding: 'credit' } },
        };
      }
      case 'bank_account': {
        const bank = checked.bank_account;
        return {
          payment_type: 'bank_account',
          fingerprint: checked.fingerprint,
          processor_token: token(testValues && bank.account_number.endsWith('0002') ? 'bankfail' : 'bankok'),
          details: {
            bank_account: {
              last4: bank.account_number.slice(-4),
              routing_number: bank.routing_number,
              account_type: bank.account_type,
            },
          },
        };
      }
      case 'crypto_wallet': {
        const wallet = checked.crypto_wallet;
        const fails = testValues && wallet.address.toLowerCase().endsWith('dead');
        return {
          payment_type: 'crypto_wallet',
          fingerprint: checked.fingerprint,
          processor_token: token(fails ? 'cryptofail' : 'cryptook'),
          details: { crypto_wallet: { network: wallet.network, address_last4: wallet.address.slice(-4) } },
        };
      }
      default: {
        // Wallet tokens always succeed and are shown as the card behind them, because the contract
        // wants exactly one of card, bank_account or crypto_wallet on every payment method.
        const last4 = String(parseInt(checked.fingerprint.slice(0, 8), 16) % 10_000).padStart(4, '0');
        return {
          payment_type: checked.type,
          fingerprint: checked.fingerprint,
          processor_token: token('approve'),
          details: { card: { brand: 'visa', last4, exp_month: 12, exp_year: now().getUTCFullYear() + 3 } },
        };
      }
    }
  }

  function outcome(request: PayoutRequest, threedsAllowed: boolean, merchantInitiated = false): ChargeOutcome {
    assertAmount(request.amount_cents);
    const seed = entropy('charge', request.idempotency_key);
    const base = {
      processor_charge_id: `${name}_${seed.subarray(0, 12).toString('hex')}`,
      avs_result: null,
      cvv_result: null,
      network_authorization_code: null,
      threeds: null,
    };
    const behaviour = readToken(request.token, request.payment_type);
    // A token we did not issue fails the charge rather than throwing, so a retrying caller stops.
    if (!behaviour) return { ...base, kind: 'failed', ...failure('processing_error') };
    if (!isCardNetwork(request.payment_type)) return { ...base, kind: 'pending' };

    // Wallet tokens carry no cvc or billing address, so only real cards get AVS and CVV results.
    const checks = request.payment_type === 'card' ? { avs_result: 'Y', cvv_result: 'M' } : {};
    const failureCode = behaviour === 'mitdecline' && merchantInitiated ? 'card_declined' : CARD_FAILURES[behaviour];
    if (failureCode) return { ...base, ...checks, kind: 'failed', ...failure(failureCode) };
    const code = Array.from(seed.subarray(12, 18), (byte) => AUTH_CODE_ALPHABET[byte % 36]).join('');
    return {
      ...base,
      ...checks,
      kind: 'succeeded',
      network_authorization_code: code,
      // 3D Secure authenticates a paying cardholder; it has no place in a payout.
      threeds:
        behaviour === 'threeds' && threedsAllowed ? { version: '2.2.0', authenticated: true, eci: '05' } : null,
    };
  }

  return {
    name,
    supportsRefunds,
    async tokenize(input, fingerprintKey, environment) {
      return tokenizeFor(input, fingerprintKey, environment === 'sandbox');
    },
    async charge(request) {
      return answered('charge', request.idempotency_key, outcome(request, request.transaction_type === 'credit', request.merchant_initiated));
    },
    async payout(request) {
      return answered('payout', request.idempotency_key, outcome(request, false));
    },
    async lookupCharge(idempotencyKey) {
      if (!db) throw new Error(`the ${name} sandbox processor keeps no record of its calls without a database`);
      const call = await findSandboxCall<ChargeOutcome>(db, name, idempotencyKey);
      return call ? { seen: true, outcome: call.outcome } : { seen: false };
    },
    async settle(request) {
      const behaviour = readToken(request.token, request.payment_type);
      if (!behaviour || !request.processor_charge_id) return { kind: 'failed', ...failure('processing_error') };
      const failureCode = SETTLEMENT_FAILURES[behaviour];
      return failureCode ? { kind: 'failed', ...failure(failureCode) } : { kind: 'succeeded' };
    },
    async refund(request) {
      assertAmount(request.amount_cents);
      if (!supportsRefunds) return { ok: false, responsetext: `Refunds through ${name} are not possible.` };
      const behaviour = readToken(request.token);
      if (!behaviour) return { ok: false, responsetext: 'Unknown payment token.' };
      if (railOf(behaviour) !== 'card') return { ok: false, responsetext: 'Only card charges can be refunded.' };
      if (behaviour === 'norefund') return { ok: false, responsetext: 'Refund amount exceeds transaction balance' };
      // A charge is refunded at most once, so its id serves as the idempotency key by default.
      const id = entropy('refund', request.idempotency_key ?? request.processor_charge_id);
      return { ok: true, processor_refund_id: `${name}_rf_${id.subarray(0, 12).toString('hex')}` };
    },
  };
}

const processors = new Map<ProcessorName, Processor>();
const recording = new WeakMap<Db, Map<ProcessorName, Processor>>();

export function isProcessorName(value: string): value is ProcessorName {
  return (SANDBOX_PROCESSORS as readonly string[]).includes(value);
}

/**
 * One shared instance per processor (and database); the name usually comes from a merchant's
 * card_processor setting. With `db` its charges and payouts are recorded there (SandboxOptions.db):
 * every path that moves money passes it, so lookupCharge knows each of them.
 */
export function getProcessor(name: ProcessorName, db?: Db): Processor {
  if (!isProcessorName(name)) throw new TypeError(`Unknown card processor: ${String(name)}`);
  let instances = db ? recording.get(db) : processors;
  if (!instances) recording.set(db!, (instances = new Map()));
  let processor = instances.get(name);
  if (!processor) {
    processor = createSandboxProcessor(name, { db });
    instances.set(name, processor);
  }
  return processor;
}
