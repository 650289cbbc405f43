import { CRASH_POINTS, type CrashPoint } from './crash-points';
import { isIP } from 'node:net';
import { z } from 'zod';

/** How long an admitted attempt holds its checkout if the API process dies before releasing it (ATTEMPT_SLOT_SECONDS). */
export const DEFAULT_ATTEMPT_SLOT_SECONDS = 60;

/**
 * Configuration comes only from environment variables, validated once at start-up so a bad
 * value stops the process with a message naming the variable instead of failing later.
 */
const DEV_ADMIN_TOKEN = 'dev-admin-token';
const DEV_ENCRYPTION_KEY = 'dev-only-data-encryption-key-change-me';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/**
 * A number from the environment. An empty or blank value (a variable passed through unset, as
 * `PORT: ${PORT:-}` in compose) is refused: coerced, it was 0, and PORT= listened on a random port.
 */
const envNumber = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? Number.NaN : v), schema);

/** Express's named ranges, or an address or CIDR block: what `trust proxy` takes. */
function isProxyRange(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * URLs by their scheme: `host:port` without one parses as a URL whose scheme is the host, and a
 * WALLET_BASE_URL of `pay.example.com:443` made every checkout link `pay.example.com:443/checkout/...`.
 */
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const postgresUrl = () => z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' });

/** DATABASE_ACQUIRE_TIMEOUT_MS's default, also that of pools made without a config (migrations, tests). */
export const DEFAULT_DATABASE_ACQUIRE_TIMEOUT_MS = 10_000;

/** setInterval's limit (2^31 - 1 ms, about 24.8 days): past it, Node fires the interval every millisecond. */
const MAX_TIMER_MS = 2_147_483_647;

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: envNumber(z.coerce.number().int().min(0).max(65535)).default(3000),
  /** Interface to listen on; development defaults to loopback, other modes to every interface. */
  HOST: z.string().min(1).optional(),
  /**
   * The proxies whose X-Forwarded-For names the client (velocity limits and the attempt log count
   * client IPs): loopback by default; behind a load balancer on another address, its range.
   */
  TRUST_PROXY: z
    .string()
    .transform((v) => v.split(',').map((entry) => entry.trim()))
    .refine((entries) => entries.every(isProxyRange), 'a comma-separated list of loopback, linklocal, uniquelocal, addresses or CIDR blocks')
    .default(['loopback']),
  DATABASE_URL: postgresUrl().default('postgres://postgres@127.0.0.1:5432/payments'),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
  /**
   * The task queue of background work (checkouts' expiry workflows, deliveries of checkout.expired):
   * `<TEMPORAL_TASK_QUEUE>-background` unless set; never the same as TEMPORAL_TASK_QUEUE.
   */
  TEMPORAL_BACKGROUND_TASK_QUEUE: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /**
   * Which task queues a worker process polls (src/worker.ts, WORKER_ROLES): `interactive` the task
   * queue, `background` the background task queue and the sweeps, `all` both (one process).
   */
  WORKER_ROLE: z.enum(['interactive', 'background', 'all']).default('all'),
  ADMIN_TOKEN: z.string().min(16).optional(),
  /**
   * Wrong admin tokens (dashboard sign-in or bearer) a client address may present within a window
   * before its further attempts are refused with 429 until the window passes (src/http/admin-token-throttle.ts).
   */
  ADMIN_TOKEN_MAX_FAILURES: envNumber(z.coerce.number().int().min(1).max(1_000_000)).default(100),
  ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: envNumber(z.coerce.number().int().min(1).max(86_400)).default(900),
  DATA_ENCRYPTION_KEY: z.string().min(16).optional(),
  /**
   * Where invitation and password-reset mails go (src/identity/mailer.ts): smtp:// or
   * smtps://, user and password in the URL. Required in production; unset elsewhere, mails are logged.
   */
  SMTP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional()),
  /** The From of those mails. */
  MAIL_FROM: z.string().min(3).default('Payments <no-reply@localhost>'),
  /** Failed merchant sign-ins allowed per account, and per client address, within a window before further attempts are answered 429. */
  MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: envNumber(z.coerce.number().int().min(1).max(1_000_000)).default(10),
  MERCHANT_SIGN_IN_MAX_FAILURES_PER_ADDRESS: envNumber(z.coerce.number().int().min(1).max(1_000_000)).default(50),
  MERCHANT_SIGN_IN_FAILURE_WINDOW_SECONDS: envNumber(z.coerce.number().int().min(1).max(86_400)).default(900),
  ACCOUNT_ROUTE_MAX_REQUESTS_PER_ADDRESS: envNumber(z.coerce.number().int().min(1).max(1_000_000)).default(100),
  ACCOUNT_ROUTE_WINDOW_SECONDS: envNumber(z.coerce.number().int().min(1).max(86_400)).default(900),
  /** A dashboard session unused this long ends, before its absolute expiry (operators reach every merchant, so theirs is shorter). */
  MERCHANT_SESSION_IDLE_MINUTES: envNumber(z.coerce.number().int().min(1).max(1440)).default(120),
  OPERATOR_SESSION_IDLE_MINUTES: envNumber(z.coerce.number().int().min(1).max(1440)).default(30),
  API_BASE_URL: httpUrl().optional(),
  WALLET_BASE_URL: httpUrl().optional(),
  ALLOW_PRIVATE_WEBHOOK_URLS: boolFromEnv.default(false),
  /** First retry delay of webhook delivery; later ones double (tests shorten it). */
  WEBHOOK_RETRY_INITIAL_MS: envNumber(z.coerce.number().int().min(1)).default(5000),
  /** How often the worker re-dispatches events whose delivery was never started. */
  OUTBOX_SWEEP_MS: envNumber(z.coerce.number().int().min(100).max(MAX_TIMER_MS)).default(5000),
  MAIL_SWEEP_MS: envNumber(z.coerce.number().int().min(100).max(MAX_TIMER_MS)).default(10_000),
  /** How often the worker deletes idempotency keys past their 24 hours (src/http/idempotency-expiry.ts). */
  IDEMPOTENCY_SWEEP_MS: envNumber(z.coerce.number().int().min(50).max(MAX_TIMER_MS)).default(300_000),
  /** How often the worker looks for checkouts whose expiry timer is late (src/checkouts/expiry.ts). */
  EXPIRY_SWEEP_MS: envNumber(z.coerce.number().int().min(50).max(MAX_TIMER_MS)).default(500),
  /** How late a checkout's expiry must be before the sweep records it instead of its workflow's timer. */
  EXPIRY_SWEEP_GRACE_MS: envNumber(z.coerce.number().int().min(0)).default(1000),
  /**
   * The interactive worker's own expiry sweep (split layout): it takes checkouts this late, which
   * the background worker has not expired (stopped, or far behind at its lower OS priority). Long
   * enough that in a wave the interactive worker, whose CPU is the attempts', rarely sweeps.
   */
  EXPIRY_BACKSTOP_GRACE_MS: envNumber(z.coerce.number().int().min(0)).default(10_000),
  /**
   * A checkout's workflow starts with a start delay until its deadline (src/temporal/checkouts.ts):
   * it runs no task until its first attempt or its expiry. `false` runs its first task at creation.
   */
  CHECKOUT_WORKFLOW_DELAYED_START: boolFromEnv.default(true),
  /** Where the Stripe connector sends its API requests: Stripe's API unless set (stripe-mock in tests). */
  STRIPE_API_BASE_URL: httpUrl().optional(),
  /** Sandbox only: simulated processor latency, for crash tests and realistic benchmarks. */
  SANDBOX_LATENCY_MS: envNumber(z.coerce.number().int().min(0).max(60_000)).default(0),
  /**
   * How long a charge may sit `created`, `pending` or `held` with no sign of an attempt working on it
   * before the reconciler (src/charges/reconciler.ts) asks the processor what happened and settles
   * it. Far above any attempt's own time (a processor call's 15 s, a hold's 10 s), which it never
   * interrupts in any case: a charge whose workflow still runs its attempt is left to it.
   */
  RECONCILE_LEASE_SECONDS: envNumber(z.coerce.number().int().min(1).max(86_400)).default(60),
  /**
   * How long an admitted attempt keeps its checkout to itself when its API process dies before it
   * answers: the customer's next attempt waits that long. Above any live request's own time; even
   * so, a charge is written only while its own attempt holds the slot.
   */
  ATTEMPT_SLOT_SECONDS: envNumber(z.coerce.number().int().min(15).max(3_600)).default(DEFAULT_ATTEMPT_SLOT_SECONDS),
  /** How often the worker looks for charges left past the lease. */
  RECONCILE_SWEEP_MS: envNumber(z.coerce.number().int().min(50).max(MAX_TIMER_MS)).default(5000),
  /** Crash tests only (src/crash-points.ts): the step of an attempt at which the worker kills itself. Refused in production. */
  PAYMENTS_TEST_CRASH_AT: z.enum(CRASH_POINTS).optional(),
  /** The dashboard links each checkout to its workflow here; `{id}` is the workflow (checkout) id. */
  TEMPORAL_UI_URL: httpUrl().optional(),
  /**
   * The Temporal Web UI's port on this machine, which `npm start` gives its dev server: the
   * default TEMPORAL_UI_URL points there, so moving the ports moves the dashboard's links too.
   */
  TEMPORAL_UI_PORT: envNumber(z.coerce.number().int().min(1).max(65535)).default(8233),
  /** The worker's health and metrics port (0 picks a free one). */
  WORKER_HTTP_PORT: envNumber(z.coerce.number().int().min(0).max(65535)).default(3001),
  /** Where the Temporal SDK serves its own worker metrics (Prometheus), e.g. 0.0.0.0:9464; off when unset. */
  TEMPORAL_METRICS_BIND_ADDRESS: z.string().regex(/^[^:]+:\d+$/).optional(),
  /** OpenTelemetry traces go over OTLP (http/protobuf) to this collector; off when unset or empty (as an unset variable passed through by compose would be). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), httpUrl().optional()),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Connections of each process's database pool. */
  DATABASE_POOL_MAX: envNumber(z.coerce.number().int().min(1).max(500)).default(10),
  /**
   * How long a query waits for a pooled connection (a new one included: connecting counts) before
   * it fails; a request then answers 503. knex's own default is a minute, longer than a merchant's
   * HTTP client waits, so a hung PostgreSQL would hold every request that long.
   */
  DATABASE_ACQUIRE_TIMEOUT_MS: envNumber(z.coerce.number().int().min(100).max(600_000)).default(DEFAULT_DATABASE_ACQUIRE_TIMEOUT_MS),
  /**
   * Worker tuning (docs/configuration.md, "Worker tuning"). Cached workflows cost memory
   * (0.3–0.5 MiB each, measured; most of it native, outside V8's heap); one that is not cached
   * replays its history when it next wakes.
   */
  WORKER_MAX_CACHED_WORKFLOWS: envNumber(z.coerce.number().int().min(0)).default(1000),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: envNumber(z.coerce.number().int().min(2)).default(40),
  WORKER_MAX_CONCURRENT_ACTIVITIES: envNumber(z.coerce.number().int().min(1)).default(100),
  WORKER_WORKFLOW_POLLERS: envNumber(z.coerce.number().int().min(1)).default(20),
  WORKER_ACTIVITY_POLLERS: envNumber(z.coerce.number().int().min(1)).default(10),
  /**
   * The share of the workflow pollers that poll the task queue itself rather than this worker's
   * sticky queue: every new checkout's first task arrives there. With the SDK's 0.2 of 10 pollers,
   * two polls fetched every first task and capped checkout creation at about 55 a second here.
   */
  WORKER_NONSTICKY_POLL_RATIO: envNumber(z.coerce.number().gt(0).max(1)).default(0.5),
  /** Threads that run workflow code (each its own V8 isolate, holding its share of the cache). */
  WORKER_WORKFLOW_THREADS: envNumber(z.coerce.number().int().min(1).max(64)).default(1),
  /**
   * How long a workflow task waits on this worker's sticky queue before the server hands it to any
   * worker (and replays it there): the wait for a task of a worker that died.
   */
  WORKER_STICKY_TIMEOUT_SECONDS: envNumber(z.coerce.number().min(1).max(600)).default(10),
});

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  host: string;
  /** Express's `trust proxy`: the proxies whose X-Forwarded-For is believed. */
  trustProxy: string[];
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  /** TEMPORAL_BACKGROUND_TASK_QUEUE: where background work runs (src/temporal/task-queues.ts). */
  backgroundTaskQueue: string;
  /** WORKER_ROLE: the task queues a worker process polls, and whether it runs the sweeps. */
  workerRole: WorkerRole;
  adminToken: string;
  adminTokenIsDefault: boolean;
  /** Failed admin-token attempts allowed per client address and window (ADMIN_TOKEN_MAX_FAILURES, ADMIN_TOKEN_FAILURE_WINDOW_SECONDS). */
  adminTokenThrottle: AdminTokenThrottleSettings;
  dataEncryptionKey: string;
  /** SMTP_URL: null outside production means mails are only logged. */
  smtpUrl: string | null;
  mailFrom: string;
  merchantSignInThrottle: MerchantSignInThrottleSettings;
  /** Requests one client address may make to the account routes without a session (ACCOUNT_ROUTE_MAX_REQUESTS_PER_ADDRESS, ACCOUNT_ROUTE_WINDOW_SECONDS). */
  accountRouteLimit: AccountRouteLimitSettings;
  /** How long an unused dashboard session lives (MERCHANT_SESSION_IDLE_MINUTES, OPERATOR_SESSION_IDLE_MINUTES), in seconds. */
  sessionIdleSeconds: { merchant: number; operator: number };
  apiBaseUrl: string;
  walletBaseUrl: string;
  allowPrivateWebhookUrls: boolean;
  webhookRetryInitialMs: number;
  outboxSweepMs: number;
  mailSweepMs: number;
  expirySweepMs: number;
  expirySweepGraceMs: number;
  expiryBackstopGraceMs: number;
  idempotencySweepMs: number;
  /** A checkout's workflow starts delayed until its deadline or first attempt (src/temporal/checkouts.ts). */
  checkoutDelayedStart: boolean;
  sandboxLatencyMs: number;
  /** STRIPE_API_BASE_URL as stripe-node takes it; null: Stripe's API. */
  stripeApi: { host: string; port: number; protocol: 'http' | 'https' } | null;
  /** RECONCILE_LEASE_SECONDS, in ms. */
  reconcileLeaseMs: number;
  attemptSlotSeconds: number;
  reconcileSweepMs: number;
  /** PAYMENTS_TEST_CRASH_AT: never set in production. */
  testCrashAt: CrashPoint | null;
  workerHttpPort: number;
  temporalMetricsBindAddress: string | null;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: traces are exported only when it is set. */
  otlpEndpoint: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  temporalUiUrl: string;
  databasePoolMax: number;
  databaseAcquireTimeoutMs: number;
  worker: WorkerTuning;
}

export interface MerchantSignInThrottleSettings {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

export interface AccountRouteLimitSettings {
  maxRequestsPerAddress: number;
  windowSeconds: number;
}

export interface AdminTokenThrottleSettings {
  maxFailures: number;
  windowSeconds: number;
}

/** The worker's slots, pollers and workflow cache (SDK defaults where not said otherwise). */
export interface WorkerTuning {
  maxCachedWorkflows: number;
  maxConcurrentWorkflowTaskExecutions: number;
  maxConcurrentActivityTaskExecutions: number;
  workflowPollers: number;
  activityPollers: number;
  nonStickyPollRatio: number;
  workflowThreads: number;
  stickyTimeoutMs: number;
}

/** What a worker process does (WORKER_ROLE): see src/worker.ts. */
export type WorkerRole = 'interactive' | 'background' | 'all';

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // Outside development the service must never run with a token or key that is printed in our
  // README or source: anyone who read them could call the admin API or open sealed secrets.
  if (e.NODE_ENV !== 'development') {
    const missing = [
      !e.ADMIN_TOKEN && `  ADMIN_TOKEN: required when NODE_ENV=${e.NODE_ENV} (the bearer token of the admin API; e.g. openssl rand -hex 24)`,
      !e.DATA_ENCRYPTION_KEY && `  DATA_ENCRYPTION_KEY: required when NODE_ENV=${e.NODE_ENV} (seals webhook signing secrets; e.g. openssl rand -hex 32; keep it stable)`,
      e.DATA_ENCRYPTION_KEY === DEV_ENCRYPTION_KEY && `  DATA_ENCRYPTION_KEY: the development key (it is in the source) is refused when NODE_ENV=${e.NODE_ENV}; e.g. openssl rand -hex 32`,
    ].filter(Boolean);
    if (e.NODE_ENV === 'production' && !e.SMTP_URL) missing.push('  SMTP_URL: required when NODE_ENV=production (invitations and password resets are mailed; e.g. smtp://user:password@mail.example.com:587)');
    if (e.NODE_ENV === 'production' && e.PAYMENTS_TEST_CRASH_AT) missing.push('  PAYMENTS_TEST_CRASH_AT: a crash-test hook, refused when NODE_ENV=production (unset it)');
    if (missing.length > 0) {
      throw new ConfigError(`Refusing to start:\n${missing.join('\n')}\n  (development defaults apply only with NODE_ENV=development)`);
    }
  }
  const backgroundTaskQueue = e.TEMPORAL_BACKGROUND_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-background`;
  if (backgroundTaskQueue === e.TEMPORAL_TASK_QUEUE) {
    throw new ConfigError(`Invalid configuration:\n  TEMPORAL_BACKGROUND_TASK_QUEUE: must differ from TEMPORAL_TASK_QUEUE (${e.TEMPORAL_TASK_QUEUE})`);
  }
  const local = `http://localhost:${e.PORT}`;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    // Development runs with a known admin token: reachable only from this machine unless HOST says otherwise.
    host: e.HOST ?? (e.NODE_ENV === 'development' ? '127.0.0.1' : '0.0.0.0'),
    trustProxy: e.TRUST_PROXY,
    databaseUrl: e.DATABASE_URL,
    temporalAddress: e.TEMPORAL_ADDRESS,
    temporalNamespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    backgroundTaskQueue,
    workerRole: e.WORKER_ROLE,
    adminToken: e.ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    adminTokenIsDefault: !e.ADMIN_TOKEN,
    adminTokenThrottle: { maxFailures: e.ADMIN_TOKEN_MAX_FAILURES, windowSeconds: e.ADMIN_TOKEN_FAILURE_WINDOW_SECONDS },
    dataEncryptionKey: e.DATA_ENCRYPTION_KEY ?? DEV_ENCRYPTION_KEY,
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM,
    merchantSignInThrottle: {
      maxFailuresPerAccount: e.MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: e.MERCHANT_SIGN_IN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: e.MERCHANT_SIGN_IN_FAILURE_WINDOW_SECONDS,
    },
    accountRouteLimit: { maxRequestsPerAddress: e.ACCOUNT_ROUTE_MAX_REQUESTS_PER_ADDRESS, windowSeconds: e.ACCOUNT_ROUTE_WINDOW_SECONDS },
    sessionIdleSeconds: { merchant: e.MERCHANT_SESSION_IDLE_MINUTES * 60, operator: e.OPERATOR_SESSION_IDLE_MINUTES * 60 },
    apiBaseUrl: stripSlash(e.API_BASE_URL ?? local),
    walletBaseUrl: stripSlash(e.WALLET_BASE_URL ?? local),
    allowPrivateWebhookUrls: e.ALLOW_PRIVATE_WEBHOOK_URLS,
    webhookRetryInitialMs: e.WEBHOOK_RETRY_INITIAL_MS,
    outboxSweepMs: e.OUTBOX_SWEEP_MS,
    mailSweepMs: e.MAIL_SWEEP_MS,
    expirySweepMs: e.EXPIRY_SWEEP_MS,
    expirySweepGraceMs: e.EXPIRY_SWEEP_GRACE_MS,
    expiryBackstopGraceMs: e.EXPIRY_BACKSTOP_GRACE_MS,
    idempotencySweepMs: e.IDEMPOTENCY_SWEEP_MS,
    checkoutDelayedStart: e.CHECKOUT_WORKFLOW_DELAYED_START,
    sandboxLatencyMs: e.SANDBOX_LATENCY_MS,
    stripeApi: e.STRIPE_API_BASE_URL ? stripeAddress(e.STRIPE_API_BASE_URL) : null,
    reconcileLeaseMs: e.RECONCILE_LEASE_SECONDS * 1000,
    attemptSlotSeconds: e.ATTEMPT_SLOT_SECONDS,
    reconcileSweepMs: e.RECONCILE_SWEEP_MS,
    testCrashAt: e.PAYMENTS_TEST_CRASH_AT ?? null,
    workerHttpPort: e.WORKER_HTTP_PORT,
    temporalMetricsBindAddress: e.TEMPORAL_METRICS_BIND_ADDRESS ?? null,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    logLevel: e.LOG_LEVEL,
    temporalUiUrl: e.TEMPORAL_UI_URL ?? `http://localhost:${e.TEMPORAL_UI_PORT}/namespaces/${e.TEMPORAL_NAMESPACE}/workflows/{id}`,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseAcquireTimeoutMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
    worker: {
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivityTaskExecutions: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      workflowPollers: e.WORKER_WORKFLOW_POLLERS,
      activityPollers: e.WORKER_ACTIVITY_POLLERS,
      nonStickyPollRatio: e.WORKER_NONSTICKY_POLL_RATIO,
      workflowThreads: e.WORKER_WORKFLOW_THREADS,
      stickyTimeoutMs: e.WORKER_STICKY_TIMEOUT_SECONDS * 1000,
    },
  };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function stripeAddress(baseUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(baseUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}
