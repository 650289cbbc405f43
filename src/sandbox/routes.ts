import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../app-deps';
import { CHARGE_STATUSES, IllegalChargeMove, allowedMoves, assertMove } from '../domain/charge-states';
import { AdminNotFoundError, ApiError, ValidationError } from '../http/errors';
import { parseOrThrow } from '../http/validate';
import { applyChargeMove } from '../charges/moves';
import { presentLoaded } from '../charges/load';
import { dispatchCommitted } from '../events/dispatch';
import { startSubscriptionWorkflows } from '../subscriptions/workflows';
import { findChargeById } from '../storage/charges';
import { findMerchant } from '../storage/merchants';
import { createHoldActivities } from '../../activities/holds';

const TransitionBody = z
  .object({
    to: z.enum(CHARGE_STATUSES),
    failure_code: z.string().min(1).max(64).optional(),
    failure_message: z.string().min(1).max(500).optional(),
  })
  .strict();

/**
 * The processor simulator (sandbox only): moves a charge along one edge of the state table as a
 * processor would, emitting exactly the event the table names. created -> held runs the real
 * hold handshake; when the merchant does not accept it the charge fails while still created.
 */
export function sandboxAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  const holds = createHoldActivities(deps);

  router.post('/sandbox/charges/:id/transition', async (req, res) => {
    const body = parseOrThrow(TransitionBody, req.body);
    const charge = await findChargeById(deps.db, req.params.id!);
    if (!charge) throw new AdminNotFoundError('Charge not found.', `No charge ${req.params.id}.`);
    const merchant = (await findMerchant(deps.db, charge.merchant_id))!;
    if (merchant.environment !== 'sandbox') {
      throw new ValidationError('The simulator is for sandbox charges only.', `Merchant ${merchant.id} is a production account.`);
    }
    try {
      assertMove(charge.status, body.to);
    } catch (error) {
      if (!(error instanceof IllegalChargeMove)) throw error;
      const allowed = allowedMoves(charge.status);
      throw new ApiError('validation', `A charge cannot move from ${charge.status} to ${body.to}.`,
        allowed.length ? `Allowed moves from ${charge.status}: ${allowed.join(', ')}.` : `${charge.status} has no outgoing move.`);
    }
    let to = body.to;
    let changes: Record<string, string | null> = {};
    if (body.to === 'held') {
      const { accepted } = await holds.placeHold({ chargeId: charge.id });
      if (!accepted) {
        to = 'failed';
        changes = { failure_code: 'insufficient_funds', failure_message: 'The merchant did not confirm the customer has the funds.' };
      }
    } else if (body.to === 'failed' || body.to === 'cancelled') {
      changes = { failure_code: body.failure_code ?? 'processor_declined', failure_message: body.failure_message ?? 'The processor reported a failure.' };
    }
    const result = await applyChargeMove(deps.db, { chargeId: charge.id, from: charge.status, to, changes });
    if (!result.moved) throw new ValidationError('The charge moved meanwhile.', `It is now ${result.charge.status}; try again.`);
    await dispatchCommitted(deps, result.eventIds);
    // Best effort, like dispatch: the worker's sweeper starts a workflow this start missed.
    await startSubscriptionWorkflows(deps, result.subscriptionIds).catch((err) => deps.logger.warn({ err }, 'subscription workflow start failed'));
    res.json(await presentLoaded(deps.db, result.charge));
  });

  return router;
}
