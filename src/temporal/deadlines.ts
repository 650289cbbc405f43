import { AsyncLocalStorage } from 'node:async_hooks';
import { ServiceUnavailableError } from '../http/errors';
import { isTransientTemporalFailure } from './transient-errors';
import { withinDeadline } from '../deadline';
import type { Db } from '../storage/db';
import { answerRequestFence, type RequestFence } from '../storage/request-fences';
import { FAILURE_TYPES, failureType } from '../../workflows/contract';

/**
 * How long a request may take to hand its work to Temporal (an attempt, a review decision, a
 * refund, a checkout's start), counted end to end through the Temporal client's own gRPC retries
 * and ours: while Temporal or the worker is away, the request is answered 503 within it, never
 * held until they return. Work handed over carries the same instant (`acceptBy`), and a workflow
 * refuses work that reaches it later, so an answered 503 is never applied behind the caller's back.
 */
export const TEMPORAL_REACH_MS = 6_000;

/**
 * How long a request waits for the outcome of work Temporal accepted: longer than the reach, since
 * a withdrawal's hold waits up to 10 s for the merchant's answer and a worker that crashed mid-charge
 * is replaced and finishes the charge (its workflow task times out first). Past it the request is
 * answered 503; the work goes on, and the same request sent again (same Idempotency-Key) answers
 * its outcome.
 */
export const TEMPORAL_OUTCOME_MS = 60_000;

/**
 * The latest a request that hands a review decision or a refund to Temporal answers, counted from
 * its start: after its reach, the question to PostgreSQL of whether the worker took the work on
 * (its request fence) and, for a refund taken on, the wait for its outcome end by then, within
 * the contract's 10 s with room for the answer itself.
 */
export const REQUEST_ANSWER_MS = 9_000;

/** A Temporal client (or its workflow client): what sets the gRPC deadline of the calls made inside `fn`. */
export interface Reachable {
  withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R>;
}

const reach = new AsyncLocalStorage<{ until: number }>();

/** How long the question of whether the Temporal server answers at all may take. */
export const TEMPORAL_PROBE_MS = 1_000;

/** Whether the Temporal server answers at all within TEMPORAL_PROBE_MS (its system info, the cheapest call). */
export function temporalAnswers(client: Reachable & { workflowService: { getSystemInfo(request: object): Promise<unknown> } }): Promise<boolean> {
  return client.withDeadline(Date.now() + TEMPORAL_PROBE_MS, () => client.workflowService.getSystemInfo({})).then(() => true, () => false);
}

/** Runs `fn` with every Temporal call in it ending by `until` (epoch ms): the client's gRPC deadline, and ours for retries. */
export function withinReach<T>(client: Reachable, until: number, fn: () => Promise<T>): Promise<T> {
  return reach.run({ until }, () => client.withDeadline(until, fn));
}

/** Waits for the outcome of accepted work (`fn`) for at most TEMPORAL_OUTCOME_MS. */
export function awaitingOutcome<T>(client: Reachable, fn: () => Promise<T>): Promise<T> {
  return withinReach(client, Date.now() + TEMPORAL_OUTCOME_MS, fn);
}

/** The instant a request's work must reach its workflow by: the reach of the request under way, or one from now. */
export function reachUntil(): number {
  return reach.getStore()?.until ?? Date.now() + TEMPORAL_REACH_MS;
}

/** Whether a pause of `ms` still leaves time in the current reach (none set: always). */
export function timeLeftFor(ms: number): boolean {
  const store = reach.getStore();
  return !store || Date.now() + ms < store.until;
}

/** The 503 of work that could not reach Temporal in time: nothing was done, and the same request sent again is safe. */
export function unreachable(): ServiceUnavailableError {
  return new ServiceUnavailableError('The payment service is briefly unavailable.', 'Nothing was lost: send the same request again after Retry-After seconds.', 1);
}

/**
 * Whether a request's call to Temporal ends in a 503: our own (past its reach), a transient failure
 * the error handler answers 503, or the workflow's refusal of work that arrived after its acceptBy.
 */
export function gaveUpOnTemporal(error: unknown): boolean {
  return error instanceof ServiceUnavailableError || isTransientTemporalFailure(error) || failureType(error) === FAILURE_TYPES.requestAnswered;
}

/** How long past its statement's limit a fence's answer is waited for: a round trip and the commit. */
const FENCE_SLACK_MS = 250;

/**
 * A request that gives up on work it handed to Temporal writes its fence (src/storage/request-fences.ts):
 * `answered`, or `claimed` when the worker took the work on first, by about `answerBy` (epoch ms).
 * Null when PostgreSQL does not say by then (down as well, or the claim's transaction still open):
 * who came first is then unknown. The statement's own limit does not cover waiting for a
 * connection, nor a server gone silent, hence the bound here too.
 */
export function fenceOnGivingUp(db: Db, fenceId: string, answerBy: number): Promise<RequestFence | null> {
  const ms = Math.max(1, answerBy - Date.now());
  return withinDeadline(answerRequestFence(db, fenceId, ms).catch(() => null), ms + FENCE_SLACK_MS, null);
}

/**
 * A request that gave up on Temporal writes its fence (fenceOnGivingUp) and goes on only when the
 * worker claimed the work first. Answered: a 503 (the work is never done). Unknown, PostgreSQL
 * silent too: a 503 whose hint (`mayStill`) says the work may still take effect.
 */
export async function assertClaimedOnGivingUp(db: Db, fenceId: string, answerBy: number, mayStill: string): Promise<void> {
  const fence = await fenceOnGivingUp(db, fenceId, answerBy);
  if (fence === 'answered') throw unreachable();
  if (fence === null) throw new ServiceUnavailableError('The payment service is briefly unavailable.', mayStill, 1);
}
