import type { AppDeps } from '../app-deps';
import { ChargeRefundInProgress, IllegalChargeMove, allowedMovesFor, assertMoveFor, type ChargeStatus, type TransactionType } from '../domain/charge-states';
import { AdminNotFoundError, ApiError, ValidationError } from '../http/errors';
import { presentLoaded } from '../charges/load';
import { refundCharge } from '../charges/refund';
import { moveChargeAsProcessor } from '../charges/processor-moves';
import { findChargeByIdUnscoped, type ChargeRow } from '../storage/charges';
import { findMerchant } from '../storage/merchants';

export interface SimulatedMove {
  to: ChargeStatus;
  failure_code?: string;
  failure_message?: string;
}

function illegalMove(from: ChargeStatus, to: ChargeStatus, transactionType: TransactionType, reason?: string): ApiError {
  // The moves this charge can make: a withdrawal's created -> pending is listed but not allowed.
  const allowed = allowedMovesFor(from, transactionType);
  const moves = allowed.length ? `Allowed moves from ${from}: ${allowed.join(', ')}.` : `${from} has no outgoing move.`;
  return new ApiError('validation', reason ?? `A charge cannot move from ${from} to ${to}.`, reason ? `${moves} ${reason}` : moves);
}

/** The simulator's refusals in the contract's shape; anything else is not a refusal. */
function moveRefusal(error: unknown, charge: ChargeRow): unknown {
  if (error instanceof IllegalChargeMove) return illegalMove(error.from, error.to, charge.transaction_type, error.reason);
  if (error instanceof ChargeRefundInProgress) {
    return new ValidationError('The charge has a refund in progress.', `Charge ${charge.id} is being refunded; it cannot move until the refund ends.`);
  }
  return error;
}

/**
 * The processor simulator (sandbox only): moves a charge along one edge of the state table as a
 * processor would, emitting exactly the events the table names. Moves that make no sense for the
 * charge are refused like unlisted ones. created -> held runs the real hold handshake (once per
 * charge); when the merchant does not accept it the charge fails while still created. A
 * processor-side refund is recorded like any other refund. The admin API sees every merchant's
 * charges, so the charge is looked up by id alone.
 */
export async function simulateChargeMove(deps: AppDeps, chargeId: string, body: SimulatedMove) {
  const charge = await findChargeByIdUnscoped(deps.db, chargeId);
  if (!charge) throw new AdminNotFoundError('Charge not found.', `No charge ${chargeId}.`);
  const merchant = (await findMerchant(deps.db, charge.merchant_id))!;
  if (merchant.environment !== 'sandbox') {
    throw new ValidationError('The simulator is for sandbox charges only.', `Merchant ${merchant.id} is a production account.`);
  }
  try {
    assertMoveFor(charge.status, body.to, charge.transaction_type);
    return await moveAsProcessor(deps, charge, body);
  } catch (error) {
    throw moveRefusal(error, charge);
  }
}

async function moveAsProcessor(deps: AppDeps, charge: ChargeRow, body: SimulatedMove) {
  if (body.to === 'refunded') return refundCharge(deps, charge.id, { source: 'processor' });
  if (body.to === 'held') return holdAsProcessor(deps, charge);
  const result = await moveChargeAsProcessor(deps, charge, body);
  if (!result.moved) throw new ValidationError('The charge moved meanwhile.', `It is now ${result.charge.status}; try again.`);
  return presentLoaded(deps.db, result.charge);
}

async function holdAsProcessor(deps: AppDeps, charge: ChargeRow) {
  const hold = await deps.holdHandshake.placeHold({ chargeId: charge.id });
  if (!hold.sent) throw new ValidationError('The hold handshake of this charge was already sent.', 'A charge gets one checkout.hold; its answer decides the move.');
  await deps.holdHandshake.resolveHold({ chargeId: charge.id, accepted: hold.accepted, answered: true });
  return presentLoaded(deps.db, (await findChargeByIdUnscoped(deps.db, charge.id))!);
}
