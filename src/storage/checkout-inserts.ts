import { KnexTimeoutError, type Knex } from 'knex';
import pg from 'pg';
import { queryPrepared, type Db } from './db';
import { credentialStillActiveSql, type CredentialGuard } from './api-keys';
import type { CheckoutRow, NewCheckout } from './checkouts';

/**
 * A checkout to write, and the check of the API key it is created with (credentialStillActive),
 * made by the INSERT itself; without one it is written for its customer alone.
 */
export type CheckoutToWrite = NewCheckout & { credential?: CredentialGuard };

/** The columns a new checkout is written with, each with the type of its array in the statement. */
const COLUMNS = [
  ['id', 'text'],
  ['merchant_id', 'text'],
  ['customer_id', 'text'],
  ['type', 'text'],
  ['flow', 'text'],
  ['client_secret_hash', 'bytea'],
  ['fixed_amount_cents', 'int'],
  ['balance_amount_cents', 'int'],
  ['line_items', 'jsonb'],
  ['line_items_total_amount_cents', 'int'],
  ['subscription', 'jsonb'],
  ['experience', 'text'],
  ['payment_options', 'jsonb'],
  ['return_url', 'text'],
  ['currency', 'text'],
  ['max_attempts', 'int'],
  ['expires_at', 'timestamptz'],
] as const satisfies ReadonlyArray<readonly [keyof NewCheckout, string]>;

// pg sends a JS array as a Postgres array literal, not JSON, so jsonb values are serialised here.
const JSON_COLUMNS: ReadonlySet<keyof NewCheckout> = new Set(['line_items', 'subscription', 'payment_options'] as const);

/** The statement's bindings: one array per column, then the credential checks' (null for a row without one). */
function columnArrays(rows: readonly CheckoutToWrite[]): Knex.RawBinding[] {
  const arrays = COLUMNS.map(([column]) =>
    rows.map((row) => {
      const value = row[column];
      return JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
    }),
  );
  if (rows.some((row) => row.credential && row.credential.column !== 'api_key_hash')) throw new Error('a checkout is created with the API key, whose check the INSERT makes');
  const guards = [rows.map((row) => row.credential?.hash ?? null), rows.map((row) => row.credential?.version ?? null)];
  return [...arrays, ...guards] as unknown as Knex.RawBinding[];
}

/**
 * Any number of checkouts in one statement: an array per column, unnested into rows, and each row
 * written only if its customer_id names a customer of its merchant_id (the join), so a missing or
 * another merchant's customer is checked in the same round trip, and only if its API key is still
 * active and its merchant row unchanged (the row's credential check, when it has one), so a cached
 * key needs no round trip of its own. Such a row is not written and not returned; the others are.
 * The text is the same for any number of rows, so each pooled connection prepares it once.
 */
const INSERT_ROWS = `INSERT INTO checkouts (${COLUMNS.map(([column]) => column).join(', ')})
SELECT ${COLUMNS.map(([column]) => (column === 'customer_id' ? 'customers.id' : `v.${column}`)).join(', ')}
  FROM unnest(${COLUMNS.map(([, type]) => `?::${type}[]`).join(', ')}, ?::bytea[], ?::xid[]) AS v(${COLUMNS.map(([column]) => column).join(', ')}, key_hash, merchant_version)
  JOIN customers ON customers.id = v.customer_id AND customers.merchant_id = v.merchant_id
 WHERE v.key_hash IS NULL OR ${credentialStillActiveSql('api_key_hash', { hash: 'v.key_hash', merchantId: 'v.merchant_id', version: 'v.merchant_version' })}`;
const INSERT_SQL = `${INSERT_ROWS}\nRETURNING *`;

/**
 * Inserts the checkouts in state `open`, each only if its customer is one of its merchant's and its
 * credential check holds, in one statement (all or nothing: an error writes none). Answers, in the
 * order given, each checkout as written, or undefined where its customer or its check was refused.
 */
export async function insertCheckoutsForCustomers(db: Db, rows: readonly CheckoutToWrite[]): Promise<Array<CheckoutRow | undefined>> {
  const written = await queryPrepared<CheckoutRow>(db, db.raw(INSERT_SQL, columnArrays(rows)));
  const byId = new Map(written.map((row) => [row.id, row]));
  return rows.map((row) => byId.get(row.id));
}

/**
 * The same rows written only where no checkout has their id yet. Run after a statement whose answer
 * was lost: a row that statement committed, or is still committing, makes this one wait for it and
 * then skip it, so once this returns every row of the batch is written or was refused.
 */
const INSERT_MISSING_SQL = `${INSERT_ROWS}\nON CONFLICT (id) DO NOTHING`;

/**
 * Raised when the outcome of a checkout's write is unknown: the answer of the statement (or its
 * commit) was lost and the write could not be read back. The checkout may exist, so its workflow
 * must be kept; a retry with the same Idempotency-Key finds it.
 */
export class CheckoutWriteOutcomeUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super('The checkout was sent to the database and its answer was lost; whether it was written is not known.');
    this.name = 'CheckoutWriteOutcomeUnknown';
  }
}

/**
 * Whether a failed write may still have committed: PostgreSQL refused nothing (no DatabaseError) and
 * the statement was sent (a pool time-out sends nothing). A lost connection is the case in point.
 */
export function writeMayHaveCommitted(error: unknown): boolean {
  return !(error instanceof pg.DatabaseError) && !(error instanceof KnexTimeoutError) && !(error instanceof CheckoutWriteOutcomeUnknown);
}

/**
 * The outcome of a batch whose answer was lost, read back: the rows are written where absent (see
 * INSERT_MISSING_SQL), then read by id. A row found with another client secret than ours is another
 * checkout's (never ours to answer); each of ours is answered as written, or undefined where its
 * customer was refused. Throws CheckoutWriteOutcomeUnknown when the database cannot be reached.
 */
export async function readBackCheckouts(db: Db, rows: readonly CheckoutToWrite[], lost: unknown): Promise<Array<CheckoutRow | undefined>> {
  try {
    await db.raw(INSERT_MISSING_SQL, columnArrays(rows));
    const found = await db<CheckoutRow>('checkouts').whereIn('id', rows.map((row) => row.id));
    const byId = new Map(found.map((row) => [row.id, row]));
    return rows.map((row) => {
      const stored = byId.get(row.id);
      if (stored && !stored.client_secret_hash.equals(row.client_secret_hash)) throw lost;
      return stored;
    });
  } catch (error) {
    if (error === lost) throw error;
    throw new CheckoutWriteOutcomeUnknown(lost);
  }
}

/** What a batch is written with; tests replace it to lose an answer after the commit. */
export interface CheckoutStatements {
  insert: typeof insertCheckoutsForCustomers;
  readBack: typeof readBackCheckouts;
}
const STATEMENTS: CheckoutStatements = { insert: insertCheckoutsForCustomers, readBack: readBackCheckouts };

/** The most checkouts one statement writes; more wait for the next. */
const MAX_BATCH = 100;

interface Waiting {
  row: CheckoutToWrite;
  resolve: (row: CheckoutRow | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for a pool's checkout INSERTs. A checkout is written at once when no batch is on
 * its way to PostgreSQL; while one is, the checkouts created meanwhile wait and go together as the
 * next batch when it returns. Under load that is one statement and one commit for several
 * checkouts (a round trip and a commit were most of PostgreSQL's work per checkout); a lone
 * checkout waits for nothing. A batch whose statement PostgreSQL refuses is tried again row by
 * row, so one bad row (a duplicate id) fails only its own checkout.
 */
export class CheckoutInsertBatcher {
  private waiting: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly statements: CheckoutStatements = STATEMENTS,
  ) {}

  insert(row: CheckoutToWrite): Promise<CheckoutRow | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) await this.write(this.waiting.splice(0, MAX_BATCH));
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    const rows = batch.map((waiting) => waiting.row);
    const answer = (written: Array<CheckoutRow | undefined>) => batch.forEach((waiting, index) => waiting.resolve(written[index]));
    try {
      answer(await this.statements.insert(this.db, rows));
    } catch (error) {
      // A lost answer (the connection dropped after the statement was sent) may hide a commit: its
      // outcome is read back, so no checkout that exists is reported as failed.
      if (writeMayHaveCommitted(error)) {
        return this.statements.readBack(this.db, rows, error).then(answer, (lost) => batch.forEach((waiting) => waiting.reject(lost)));
      }
      // Only PostgreSQL's refusal of the statement can be one row's fault. No connection in time
      // would fail each row alike, and retrying would keep its requests waiting longer.
      if (batch.length === 1 || !(error instanceof pg.DatabaseError)) return batch.forEach((waiting) => waiting.reject(error));
      // The statement wrote nothing: each row alone, so only the rows that fail by themselves fail.
      await Promise.all(batch.map((waiting) => this.statements.insert(this.db, [waiting.row]).then(([row]) => waiting.resolve(row), waiting.reject)));
    }
  }
}

const batchers = new WeakMap<Db, CheckoutInsertBatcher>();

/**
 * Inserts the checkout in state `open` if `row.customer_id` names a customer of `row.merchant_id`
 * and `row.credential`'s check holds, answering undefined (having written nothing) for a customer
 * that is missing or another merchant's, or a check that failed. On a pool it goes through the pool's batcher (one per pool, that is per process and
 * database); inside a transaction (a checkout with line items) it runs there, alone.
 */
export async function insertCheckoutForCustomer(db: Db, row: CheckoutToWrite): Promise<CheckoutRow | undefined> {
  if (db.isTransaction) return (await insertCheckoutsForCustomers(db, [row]))[0];
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new CheckoutInsertBatcher(db)));
  return batcher.insert(row);
}

/** Tests: the pool's batcher writes with these statements from now on (to lose an answer after a commit); none: the real ones. */
export function useCheckoutStatementsForTests(db: Db, statements: CheckoutStatements = STATEMENTS): void {
  batchers.set(db, new CheckoutInsertBatcher(db, statements));
}
