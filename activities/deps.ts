import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Sealer } from '../src/crypto';
import type { HostResolver } from '../src/webhooks/target';
import type { Logger } from '../src/logger';
import type { Db } from '../src/storage/db';

/** What activities are built from: the worker injects real ones, tests may inject their own. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  sealer: Sealer;
  logger: Logger;
  /** Activities that start other workflows (event delivery) use the worker's client. */
  temporal: Client;
  /** Resolves webhook hosts; tests inject one they control, the system resolver otherwise. */
  resolveHost?: HostResolver;
}
