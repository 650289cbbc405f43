import type { ActivityDeps } from './deps';
import { deliverAfterCommit } from '../src/events/first-delivery';
import type { Db } from '../src/storage/db';

/** What a transaction of an activity answers, and the events it recorded. */
export type WithEvents<T> = { result: T; eventIds: string[] };

/** Runs `work` in one transaction and, after the commit, starts delivery of the events it recorded. */
export async function commitWithEvents<T>(deps: ActivityDeps, work: (trx: Db) => Promise<WithEvents<T>>): Promise<T> {
  const { result, eventIds } = await deps.db.transaction(work);
  deliverAfterCommit(deps, eventIds);
  return result;
}
