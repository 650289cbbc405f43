import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Sealer } from './crypto';
import type { HostResolver } from './webhooks/target';
import type { Logger } from './logger';
import type { Db } from './storage/db';
import type { Tracing } from './observability/tracing';

/**
 * The hold handshake of the worker's hold activities (checkout.hold sent, its answer deciding the
 * charge), which the sandbox simulator runs for its created -> held move. The composition root
 * builds it from the same dependencies, so the HTTP layer never imports activities.
 */
export interface HoldHandshake {
  placeHold(input: { chargeId: string }): Promise<{ accepted: boolean; sent: boolean }>;
  resolveHold(input: { chargeId: string; accepted: boolean; answered?: boolean }): Promise<unknown>;
}

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
  holdHandshake: HoldHandshake;
}
