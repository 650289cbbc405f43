import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Sealer } from './crypto';
import type { HostResolver } from './webhooks/target';
import type { Logger } from './logger';
import type { Db } from './storage/db';
import type { Tracing } from './observability/tracing';

/** What the HTTP layer is built from; created once per process and injected (tests build their own). */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: Client;
  sealer: Sealer;
  logger: Logger;
  /** Resolves webhook hosts; tests inject one they control, the system resolver otherwise. */
  resolveHost?: HostResolver;
  /** The process's tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set); the worker exports workflow spans through it. */
  tracing?: Tracing;
}
