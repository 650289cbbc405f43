import type { AppDeps } from '../app-deps';
import type { ChargeStatus } from '../domain/charge-states';
import { dispatchCommitted } from '../events/dispatch';
import { startSubscriptionWorkflows } from '../subscriptions/workflows';
import type { ChargeRow } from '../storage/charges';
import { chargeMovedSignal, checkoutWorkflowId, renewalMovedSignal, subscriptionWorkflowId } from '../../workflows/contract';
import { applyChargeMove } from './moves';

export interface ProcessorMove {
  to: ChargeStatus;
  failure_code?: string;
  failure_message?: string;
}

/**
 * A move the processor reported on its own (the sandbox simulator, a processor's event): the one
 * move path (applyChargeMove: the state table's edge, its event), then its events' delivery, the
 * subscription workflows it starts, and the workflows waiting on the charge woken. `moved` is
 * false when the charge was no longer where the move starts (it moved meanwhile).
 */
export async function moveChargeAsProcessor(deps: AppDeps, charge: ChargeRow, move: ProcessorMove) {
  const changes =
    move.to === 'failed' || move.to === 'cancelled'
      ? { failure_code: move.failure_code ?? 'processor_declined', failure_message: move.failure_message ?? 'The processor reported a failure.' }
      : {};
  const result = await applyChargeMove(deps.db, { chargeId: charge.id, from: charge.status, to: move.to, changes });
  if (!result.moved) return result;
  await dispatchCommitted(deps, result.eventIds);
  // Best effort, like dispatch: the worker's sweeper starts a workflow this start missed.
  await startSubscriptionWorkflows(deps, result.subscriptionIds).catch((err) => deps.logger.warn({ err }, 'subscription workflow start failed'));
  await wakeWaitingWorkflows(deps, charge);
  return result;
}

/**
 * A checkout workflow waiting out this pending charge's settlement time, or this held charge's
 * hold time, reads it now; if the signal is lost, it reads it when that time is up, as before.
 */
async function wakeWaitingWorkflows(deps: AppDeps, charge: ChargeRow): Promise<void> {
  if (charge.status !== 'pending' && charge.status !== 'held') return;
  await deps.temporal.workflow
    .getHandle(checkoutWorkflowId(charge.checkout_id))
    .signal(chargeMovedSignal, charge.id, charge.status)
    .catch((err: unknown) => deps.logger.debug({ err, chargeId: charge.id }, 'charge-moved signal not delivered'));
  // A renewal's settlement is waited out by its subscription's workflow, not the checkout's.
  if (charge.subscription_id && (charge.subscription_period ?? 0) > 0) {
    await deps.temporal.workflow
      .getHandle(subscriptionWorkflowId(charge.subscription_id))
      .signal(renewalMovedSignal, charge.id)
      .catch((err: unknown) => deps.logger.debug({ err, chargeId: charge.id }, 'renewal-moved signal not delivered'));
  }
}
