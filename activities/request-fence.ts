import { ApplicationFailure } from '@temporalio/activity';
import { claimRequestFence } from '../src/storage/request-fences';
import type { Db } from '../src/storage/db';
import { FAILURE_TYPES } from '../workflows/contract';

/**
 * Takes on the work of the request that sent it (`fenceId`, the request's own for that send),
 * inside the transaction that does the work, so both commit together or neither does. A request
 * that gave up first (it answered 503) keeps its word: the work is refused, non-retryable. Work
 * sent without a fence (workflows from before it, a processor's own refund) goes ahead.
 */
export async function claimForRequest(trx: Db, fenceId: string | undefined): Promise<void> {
  if (fenceId === undefined) return;
  if ((await claimRequestFence(trx, fenceId)) === 'answered') {
    throw ApplicationFailure.nonRetryable('the request that sent this work was answered before the work was done', FAILURE_TYPES.requestAnswered);
  }
}
