import { createDb, type Db } from '../../src/storage/db';

/**
 * What happens to the n-th use of the pool (counting from 1) and after. Each statement outside a
 * transaction, and each transaction, takes one connection: the n-th use is the code's n-th step
 * that touches the database.
 * - `down`: that use and every later one fail as a database that refuses connections would.
 * - `pause`: that use waits until `resume()` (a stalled database, or a worker descheduled there).
 */
export type Fault = { kind: 'down'; from: number } | { kind: 'pause'; at: number };

export interface FaultyDb {
  db: Db;
  /** Resolves when the fault's use is reached (never, when the code made fewer uses). */
  reached: Promise<void>;
  /** Lets a paused use go on. */
  resume(): void;
  /** How many uses the code made. */
  uses(): number;
  destroy(): Promise<void>;
}

/** The error a use meets while the database is down, as pg reports a refused connection. */
export class DatabaseDown extends Error {
  readonly code = 'ECONNREFUSED';
  constructor(use: number) {
    super(`connect ECONNREFUSED (the test stopped the database before use ${use})`);
    this.name = 'DatabaseDown';
  }
}

/**
 * A pool of its own to the same database, for code under test built with it (an activity factory
 * given `{ ...deps, db }`), that meets `fault` at one step: the rest of the service keeps its pool.
 */
export function faultyDb(databaseUrl: string, fault: Fault): FaultyDb {
  const db = createDb(databaseUrl, { max: 2 });
  const client = db.client as { acquireConnection: () => Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  let count = 0;
  let markReached!: () => void;
  const reached = new Promise<void>((resolve) => (markReached = resolve));
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  client.acquireConnection = async () => {
    count += 1;
    const use = count;
    if (fault.kind === 'down' && use >= fault.from) {
      markReached();
      throw new DatabaseDown(use);
    }
    if (fault.kind === 'pause' && use === fault.at) {
      markReached();
      await resumed;
    }
    return acquire();
  };
  return { db, reached, resume, uses: () => count, destroy: () => db.destroy() };
}
