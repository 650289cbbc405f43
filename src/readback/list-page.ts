import { AdminNotFoundError, NotFoundError } from '../http/errors';
import { UnknownCursorError, type Page, type PageRequest } from '../storage/pages';

const unknownMerchantCursor = (cursor: string) => new NotFoundError('Unknown starting_after.', `No item ${cursor} exists in this list for this business.`);

/**
 * A page as the API answers it: results, whether more exist, and the cursor for the next page. An
 * unknown cursor is the contract's not-found unless `unknownCursor` says otherwise (the admin API's 404).
 */
export async function listPage<Row extends { id: string }, Out>(
  read: () => Promise<Page<Row>>,
  present: (rows: Row[]) => Promise<Out[]> | Out[],
  unknownCursor: (cursor: string) => Error = unknownMerchantCursor,
): Promise<{ results: Out[]; has_more: boolean; next_starting_after: string | null }> {
  let page: Page<Row>;
  try {
    page = await read();
  } catch (error) {
    if (error instanceof UnknownCursorError) throw unknownCursor(error.cursor);
    throw error;
  }
  const last = page.rows[page.rows.length - 1];
  return { results: await present(page.rows), has_more: page.hasMore, next_starting_after: page.hasMore && last ? last.id : null };
}

/** What the admin API's lists are read with: the page asked for. */
export interface AdminPageQuery {
  limit: number;
  starting_after?: string;
}

/** A page of an admin list, `{results, has_more, next_starting_after}`; a cursor that is not a row of the list is 404. */
export function adminPage<Row extends { id: string }, Out>(read: (page: PageRequest) => Promise<Page<Row>>, query: AdminPageQuery, present: (rows: Row[]) => Promise<Out[]> | Out[]) {
  return listPage(
    () => read({ limit: query.limit, startingAfter: query.starting_after }),
    present,
    (cursor) => new AdminNotFoundError('Unknown starting_after.', `${cursor} is not an item of this list (with these filters' merchant_id); pass the next_starting_after of the previous page.`),
  );
}
