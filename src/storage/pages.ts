import type { Knex } from 'knex';
import type { Db } from './db';

/** One page of a newest-first list: `limit` rows after the `startingAfter` row (exclusive). */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
}

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
}

/** The cursor row does not exist in this scope; the caller reports it like any unknown id. */
export class UnknownCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`unknown cursor ${cursor}`);
  }
}

/** How a table is ordered newest first: by (created_at, id), or by the events' commit sequence. */
type Order = { kind: 'created' } | { kind: 'seq' };

/**
 * A keyset page of `table`, every query scoped by `scope` (always including merchant_id when a
 * merchant reads). The cursor is compared in SQL against the cursor row itself, so timestamps
 * keep their microseconds and ties on created_at are broken by id.
 */
export async function pageOf<T>(db: Db, table: string, scope: Record<string, string>, page: PageRequest, order: Order = { kind: 'created' }): Promise<Page<T>> {
  const query: Knex.QueryBuilder = db(table).where(scope);
  if (page.startingAfter !== undefined) {
    const cursor = await db(table).where({ ...scope, id: page.startingAfter }).first('id');
    if (!cursor) throw new UnknownCursorError(page.startingAfter);
    if (order.kind === 'seq') query.where('seq', '<', db(table).select('seq').where({ id: page.startingAfter }));
    else query.whereRaw(`(created_at, id) < (SELECT created_at, id FROM ${table} WHERE id = ?)`, [page.startingAfter]);
  }
  const columns = order.kind === 'seq' ? [{ column: 'seq', order: 'desc' as const }] : [{ column: 'created_at', order: 'desc' as const }, { column: 'id', order: 'desc' as const }];
  const rows = (await query.orderBy(columns).limit(page.limit + 1)) as T[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
