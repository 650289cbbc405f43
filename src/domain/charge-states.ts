// The charge state table of the contract, as data: every status change goes through it,
// so a move the contract does not list cannot be applied and tests can iterate over it.
import type { EventType } from './event-types';

export const CHARGE_STATUSES = [
  'created',
  'pending',
  'succeeded',
  'failed',
  'held',
  'voided',
  'returned',
  'refunded',
  'cancelled',
] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export type TransactionType = 'credit' | 'debit';

export interface ChargeTransition {
  readonly from: ChargeStatus;
  readonly to: ChargeStatus;
  /** The event recorded for this move (delivery still depends on the merchant's settings). */
  readonly event: EventType | null;
}

const TABLE: readonly ChargeTransition[] = [
  { from: 'created', to: 'pending', event: 'checkout.pending' },
  // The hold event is delivered before this move; the move happens only on a 2xx answer.
  { from: 'created', to: 'held', event: 'checkout.hold' },
  { from: 'created', to: 'succeeded', event: 'checkout.succeeded' },
  // Also the path of a hold that was not answered with success: the charge never left created.
  { from: 'created', to: 'failed', event: 'checkout.failed' },
  { from: 'pending', to: 'succeeded', event: 'checkout.succeeded' },
  { from: 'pending', to: 'failed', event: 'checkout.failed' },
  // The contract contradicts itself here (opt-in event vs "no event"); we record the opt-in,
  // payout-only event, so eventForMove drops it for credit charges.
  { from: 'pending', to: 'cancelled', event: 'checkout.cancelled' },
  { from: 'held', to: 'succeeded', event: 'checkout.succeeded' },
  // A held charge that fails releases the hold rather than reporting a plain failure.
  { from: 'held', to: 'failed', event: 'checkout.release_hold' },
  { from: 'held', to: 'pending', event: 'checkout.pending' },
  { from: 'succeeded', to: 'returned', event: 'checkout.returned' },
  // succeeded is not terminal: a settled charge can still be reversed.
  { from: 'succeeded', to: 'failed', event: 'checkout.failed' },
  { from: 'succeeded', to: 'voided', event: 'checkout.voided' },
  // The refund endpoint's wording wins over the lifecycle listing's "no event".
  { from: 'succeeded', to: 'refunded', event: 'checkout.refunded' },
];

// Frozen so no caller can add a move at run time.
export const CHARGE_TRANSITIONS: readonly ChargeTransition[] = Object.freeze(
  TABLE.map((move) => Object.freeze({ ...move })),
);

// voided has no outgoing move either, but the contract does not call it terminal.
const TERMINAL_STATUSES: ReadonlySet<ChargeStatus> = new Set<ChargeStatus>([
  'failed',
  'returned',
  'cancelled',
  'refunded',
]);

export function isChargeStatus(value: string): value is ChargeStatus {
  return (CHARGE_STATUSES as readonly string[]).includes(value);
}

export function findTransition(from: ChargeStatus, to: ChargeStatus): ChargeTransition | undefined {
  return CHARGE_TRANSITIONS.find((move) => move.from === from && move.to === to);
}

export function allowedMoves(from: ChargeStatus): ChargeStatus[] {
  return CHARGE_TRANSITIONS.filter((move) => move.from === from).map((move) => move.to);
}

export function isTerminal(status: ChargeStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/**
 * Raised when code (or the sandbox simulator) asks for a move the charge table does not list,
 * or one it lists that makes no sense for this charge (`reason` then says why).
 */
export class IllegalChargeMove extends Error {
  readonly from: ChargeStatus;
  readonly to: ChargeStatus;
  readonly allowed: readonly ChargeStatus[];
  readonly reason: string | undefined;

  constructor(from: ChargeStatus, to: ChargeStatus, reason?: string) {
    const allowed = allowedMoves(from);
    const options = allowed.length > 0 ? allowed.join(', ') : 'none';
    super(reason ?? `A charge cannot move from ${from} to ${to}; allowed moves from ${from}: ${options}.`);
    this.name = 'IllegalChargeMove';
    this.from = from;
    this.to = to;
    this.allowed = allowed;
    this.reason = reason;
  }
}

/**
 * Moves the table lists for every charge but that make no sense for this kind of charge: a
 * withdrawal is paid only after its hold was accepted (created -> held), only a withdrawal is
 * held, and only a deposit is refunded. Answers why, or null when the move fits the charge.
 */
export function moveRefusalFor(from: ChargeStatus, to: ChargeStatus, transactionType: TransactionType): string | null {
  if (transactionType === 'debit' && from === 'created' && (to === 'pending' || to === 'succeeded')) {
    return "A withdrawal's charge is paid out only after its hold was accepted (created -> held).";
  }
  if (transactionType === 'credit' && to === 'held') return "Only a withdrawal's charge is held.";
  if (transactionType === 'debit' && to === 'refunded') return 'Only credit (deposit) charges can be refunded.';
  return null;
}

/** The moves the table lists from `from` that also fit this kind of charge (moveRefusalFor). */
export function allowedMovesFor(from: ChargeStatus, transactionType: TransactionType): ChargeStatus[] {
  return allowedMoves(from).filter((to) => moveRefusalFor(from, to, transactionType) === null);
}

/** assertMove, and the move fits this kind of charge. */
export function assertMoveFor(from: ChargeStatus, to: ChargeStatus, transactionType: TransactionType): ChargeTransition {
  const move = assertMove(from, to);
  const refusal = moveRefusalFor(from, to, transactionType);
  if (refusal) throw new IllegalChargeMove(from, to, refusal);
  return move;
}

/**
 * Raised when a refund has claimed the charge: until it ends, no other move may take the charge
 * from `succeeded`, so a refund and a reversal of the same charge cannot both happen.
 */
export class ChargeRefundInProgress extends Error {
  constructor(readonly chargeId: string) {
    super(`Charge ${chargeId} has a refund in progress.`);
    this.name = 'ChargeRefundInProgress';
  }
}

export function assertMove(from: ChargeStatus, to: ChargeStatus): ChargeTransition {
  const move = findTransition(from, to);
  if (!move) throw new IllegalChargeMove(from, to);
  return move;
}

/** The event to record for a move, or null when none is sent; throws IllegalChargeMove for unlisted moves. */
export function eventForMove(
  from: ChargeStatus,
  to: ChargeStatus,
  transactionType: TransactionType,
): EventType | null {
  const move = assertMove(from, to);
  // checkout.cancelled is payout-only, so a cancelled deposit emits nothing.
  if (move.event === 'checkout.cancelled' && transactionType !== 'debit') return null;
  return move.event;
}
