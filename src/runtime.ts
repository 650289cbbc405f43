import { loadConfig, ConfigError, type Config } from './config';
import { Sealer } from './crypto';
import { createLogger } from './logger';
import { createDb } from './storage/db';
import { closeCredentialCache } from './http/credential-cache';
import { createTemporalClient } from './temporal/client';
import type { AppDeps } from './app-deps';
import { startTracing } from './observability/tracing';
import { createHoldActivities } from '../activities/holds';

/**
 * Builds the process-wide dependencies once: configuration (validated), tracing (before any
 * client exists), the database pool, the one Temporal client, the sealer and the logger, and the
 * hold handshake the sandbox simulator runs.
 */
export async function createRuntime(config: Config = loadConfigOrExit(), serviceName = 'payments-api'): Promise<AppDeps> {
  const logger = createLogger(config.logLevel);
  const tracing = startTracing({ serviceName, otlpEndpoint: config.otlpEndpoint });
  if (tracing.enabled) logger.info({ endpoint: withoutCredentials(config.otlpEndpoint), serviceName }, 'OpenTelemetry traces exported over OTLP');
  // Migrations run before the processes start (entry/migrate.ts), never concurrently from two of them.
  const db = createDb(config.databaseUrl, { max: config.databasePoolMax, acquireTimeoutMs: config.databaseAcquireTimeoutMs });
  const temporal = await createTemporalClient(config.temporalAddress, config.temporalNamespace, { traced: tracing.enabled });
  const base = { config, db, temporal, sealer: new Sealer(config.dataEncryptionKey), logger, tracing };
  return { ...base, holdHandshake: createHoldActivities(base) };
}

/** A URL as it may be logged: a user name and password in it (a collector's basic auth) never reach a log line. */
function withoutCredentials(url: string | null): string | null {
  if (!url) return url;
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

export async function closeRuntime(deps: AppDeps): Promise<void> {
  await closeCredentialCache(deps.db);
  await deps.temporal.connection.close();
  await deps.db.destroy();
  // Flushes the spans still batched.
  await deps.tracing?.shutdown();
}
