import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import pg from 'pg';
import { credentialCacheFor } from '../../src/http/credential-cache';
import type { Service } from './harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from './http';
import { waitFor } from './fixtures';

/** One query this process sent to PostgreSQL: its text, and when it was sent and answered (ms). */
export interface SentQuery {
  sql: string;
  /** Sent as a named (prepared) statement. */
  prepared: boolean;
  sentAt: number;
  answeredAt: number;
}

/** The queries sent while `run` ran: the worker's activities' apart (a worker in this process), the rest (the API's) in `queries`. */
export interface Counted<T> {
  result: T;
  queries: SentQuery[];
  worker: SentQuery[];
}

const textOf = (config: unknown): string => (typeof config === 'string' ? config : String((config as { text?: unknown } | undefined)?.text ?? ''));

/**
 * Counts the queries this process sends while `run` runs: pg.Client.query is where every one goes,
 * the pool's and the credential listener's alike. A query made inside a Temporal activity (local
 * or not) is the worker's, counted until `settled` resolves too (the worker's part of the work may
 * outlast the answer; the test's own queries meanwhile are not counted). The worker's sweepers must
 * be off (startService `sweeps: false`): theirs would be counted as the API's.
 */
export async function queriesDuring<T>(run: () => Promise<T>, settled?: (result: T) => Promise<unknown>): Promise<Counted<T>> {
  const original = pg.Client.prototype.query;
  const queries: SentQuery[] = [];
  const worker: SentQuery[] = [];
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const sent: SentQuery = { sql: textOf(args[0]), prepared: typeof (args[0] as { name?: unknown } | undefined)?.name === 'string', sentAt: performance.now(), answeredAt: Number.POSITIVE_INFINITY };
    (activityContext.getStore() ? worker : queries).push(sent);
    const answered = () => void (sent.answeredAt = performance.now());
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (...results: unknown[]) => (answered(), callback(...results));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    }
    const answer = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (answer instanceof Promise) answer.then(answered, answered);
    return answer;
  } as typeof original;
  try {
    const result = await run();
    const answered = [...queries];
    if (settled) await settled(result);
    return { result, queries: answered, worker };
  } finally {
    pg.Client.prototype.query = original;
  }
}

/**
 * How many of the queries ran one after the other: the most that can be picked with none
 * overlapping another in time (each sent after the one before was answered). Queries sent
 * together (Promise.all) count once.
 */
export function inSeries(queries: readonly SentQuery[]): number {
  let count = 0;
  let free = Number.NEGATIVE_INFINITY;
  for (const query of [...queries].sort((a, b) => a.answeredAt - b.answeredAt)) {
    if (query.sentAt < free) continue;
    count += 1;
    free = query.answeredAt;
  }
  return count;
}

/** Whether every one of the queries was on its way while each of the others was: sent together. */
export function allOverlap(queries: readonly SentQuery[]): boolean {
  return Math.max(...queries.map((q) => q.sentAt)) < Math.min(...queries.map((q) => q.answeredAt));
}

/**
 * A merchant (settings as given) whose API key is cached, with the credential cache listening:
 * a first request fills the cache, as a recently used credential is.
 */
export async function cachedMerchant(service: Service, settings: Record<string, unknown> = {}): Promise<{ merchant: MerchantCredentials; customerId: string }> {
  const merchant = await onboard(service, { settings });
  const cache = credentialCacheFor(service.deps.db);
  const create = () => request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer() });
  await waitFor(async () => (await create(), cache.active), 10_000, 'the cache listening');
  const customer = await create(); // cached now
  expect(customer.status).toBe(201);
  return { merchant, customerId: customer.body.id };
}

/** Revokes every key of the merchant behind the cache: no announcement, so only the request's own check can know. */
export async function revokeBehindTheCache(service: Service, merchantId: string): Promise<void> {
  await service.deps.db('api_keys').where({ merchant_id: merchantId }).update({ revoked_at: service.deps.db.fn.now() });
}
