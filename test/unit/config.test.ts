import { loadConfig, ConfigError } from '../../src/config';
import { temporalMetricsRuntimeOptions, tuningOptions } from '../../src/worker';

describe('configuration', () => {
  it('defaults to development with the dev admin token, and says so', () => {
    const config = loadConfig({});
    expect(config.nodeEnv).toBe('development');
    expect(config.adminToken).toBe('dev-admin-token');
    expect(config.adminTokenIsDefault).toBe(true);
    expect(config.apiBaseUrl).toBe('http://localhost:3000');
    expect(config.walletBaseUrl).toBe('http://localhost:3000');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'nope' }, 'DATABASE_URL'],
    [{ API_BASE_URL: 'localhost' }, 'API_BASE_URL'],
    [{ WALLET_BASE_URL: '::' }, 'WALLET_BASE_URL'],
    [{ TEMPORAL_ADDRESS: '' }, 'TEMPORAL_ADDRESS'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ NODE_ENV: 'production' }, 'ADMIN_TOKEN'],
    [{ NODE_ENV: 'production', ADMIN_TOKEN: 'a-long-admin-token-123' }, 'DATA_ENCRYPTION_KEY'],
    [{ NODE_ENV: 'production', ADMIN_TOKEN: 'a-long-admin-token-123', DATA_ENCRYPTION_KEY: 'a-long-data-key-12345' }, 'SMTP_URL'],
    [{ SMTP_URL: 'mail.example.com:25' }, 'SMTP_URL'],
    [{ NODE_ENV: 'test', DATA_ENCRYPTION_KEY: 'a-long-data-key-12345' }, 'ADMIN_TOKEN'],
    // The development key, set explicitly: it is in our source, so it seals nothing outside development.
    [{ NODE_ENV: 'production', ADMIN_TOKEN: 'a-long-admin-token-123', DATA_ENCRYPTION_KEY: 'dev-only-data-encryption-key-change-me' }, 'DATA_ENCRYPTION_KEY'],
    [{ WORKER_WORKFLOW_THREADS: '0' }, 'WORKER_WORKFLOW_THREADS'],
    [{ ATTEMPT_SLOT_SECONDS: '5' }, 'ATTEMPT_SLOT_SECONDS'],
    [{ WORKER_STICKY_TIMEOUT_SECONDS: '0.5' }, 'WORKER_STICKY_TIMEOUT_SECONDS'],
    [{ WORKER_NONSTICKY_POLL_RATIO: '0' }, 'WORKER_NONSTICKY_POLL_RATIO'],
    [{ WORKER_NONSTICKY_POLL_RATIO: '1.5' }, 'WORKER_NONSTICKY_POLL_RATIO'],
    [{ CHECKOUT_WORKFLOW_DELAYED_START: 'yes' }, 'CHECKOUT_WORKFLOW_DELAYED_START'],
    // An empty or blank number (a variable passed through unset) is not 0: PORT= listened on a random port.
    [{ PORT: '' }, 'PORT'],
    [{ WORKER_HTTP_PORT: ' ' }, 'WORKER_HTTP_PORT'],
    [{ WORKER_MAX_CACHED_WORKFLOWS: '' }, 'WORKER_MAX_CACHED_WORKFLOWS'],
    [{ EXPIRY_SWEEP_GRACE_MS: '' }, 'EXPIRY_SWEEP_GRACE_MS'],
    // Past a timer's 32-bit limit Node runs an interval every millisecond: a sweep a month apart hammered the database.
    [{ OUTBOX_SWEEP_MS: '3000000000' }, 'OUTBOX_SWEEP_MS'],
    [{ EXPIRY_SWEEP_MS: '1e10' }, 'EXPIRY_SWEEP_MS'],
    // host:port without a scheme parses as a URL whose scheme is the host: every checkout link was 'pay.example.com:443/checkout/...'.
    [{ WALLET_BASE_URL: 'pay.example.com:443' }, 'WALLET_BASE_URL'],
    [{ API_BASE_URL: 'localhost:3000' }, 'API_BASE_URL'],
    [{ API_BASE_URL: 'ftp://files.example.com' }, 'API_BASE_URL'],
    [{ TEMPORAL_UI_URL: 'temporal:8233' }, 'TEMPORAL_UI_URL'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ DATABASE_URL: 'localhost:5432/payments' }, 'DATABASE_URL'],
    [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loopback, 10.0.0.0/33' }, 'TRUST_PROXY'],
  ])('rejects %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });

  it('starts checkout workflows delayed until their deadline unless CHECKOUT_WORKFLOW_DELAYED_START is false', () => {
    expect(loadConfig({}).checkoutDelayedStart).toBe(true);
    expect(loadConfig({ CHECKOUT_WORKFLOW_DELAYED_START: 'false' }).checkoutDelayedStart).toBe(false);
    expect(loadConfig({ CHECKOUT_WORKFLOW_DELAYED_START: '1' }).checkoutDelayedStart).toBe(true);
  });

  it('believes X-Forwarded-For from loopback only, unless TRUST_PROXY names the proxies in front', () => {
    expect(loadConfig({}).trustProxy).toEqual(['loopback']);
    expect(loadConfig({ TRUST_PROXY: 'loopback, uniquelocal' }).trustProxy).toEqual(['loopback', 'uniquelocal']);
    expect(loadConfig({ TRUST_PROXY: '10.1.2.3,fd00::/8' }).trustProxy).toEqual(['10.1.2.3', 'fd00::/8']);
  });

  it('listens on loopback in development and on every interface elsewhere, unless HOST is set', () => {
    const secrets = { ADMIN_TOKEN: 'a-long-admin-token-123', DATA_ENCRYPTION_KEY: 'a-long-data-key-12345', SMTP_URL: 'smtp://mail.example.com:587' };
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', ...secrets }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', HOST: '10.0.0.5', ...secrets }).host).toBe('10.0.0.5');
  });

  it('takes every documented variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@db:5432/x',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'payments',
      TEMPORAL_TASK_QUEUE: 'q',
      ADMIN_TOKEN: 'a-long-admin-token-123',
      API_BASE_URL: 'https://api.example.com/',
      WALLET_BASE_URL: 'https://pay.example.com',
    });
    expect(config).toMatchObject({
      port: 8080,
      databaseUrl: 'postgres://u@db:5432/x',
      temporalAddress: 'temporal:7233',
      temporalNamespace: 'payments',
      taskQueue: 'q',
      adminToken: 'a-long-admin-token-123',
      adminTokenIsDefault: false,
      apiBaseUrl: 'https://api.example.com',
      walletBaseUrl: 'https://pay.example.com',
    });
  });

  it('runs background work on `<task queue>-background` unless TEMPORAL_BACKGROUND_TASK_QUEUE names another queue, and workers in role all unless WORKER_ROLE says otherwise', () => {
    expect(loadConfig({})).toMatchObject({ taskQueue: 'payments', backgroundTaskQueue: 'payments-background', workerRole: 'all' });
    expect(loadConfig({ TEMPORAL_TASK_QUEUE: 'q' }).backgroundTaskQueue).toBe('q-background');
    expect(loadConfig({ TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_BACKGROUND_TASK_QUEUE: 'later' }).backgroundTaskQueue).toBe('later');
    expect(loadConfig({ TEMPORAL_BACKGROUND_TASK_QUEUE: '' }).backgroundTaskQueue).toBe('payments-background');
    expect(() => loadConfig({ TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_BACKGROUND_TASK_QUEUE: 'q' })).toThrow(/TEMPORAL_BACKGROUND_TASK_QUEUE/);
    expect(loadConfig({ WORKER_ROLE: 'interactive' }).workerRole).toBe('interactive');
    expect(loadConfig({ WORKER_ROLE: 'background' }).workerRole).toBe('background');
    for (const bad of ['both', '', 'Background']) expect(() => loadConfig({ WORKER_ROLE: bad })).toThrow(/WORKER_ROLE/);
  });

  it("links the dashboard to the Temporal Web UI on TEMPORAL_UI_PORT, the port npm start gives the UI, unless TEMPORAL_UI_URL is set", () => {
    expect(loadConfig({}).temporalUiUrl).toBe('http://localhost:8233/namespaces/default/workflows/{id}');
    // Moving npm start's ports starts the UI on another port: the dashboard's link must follow it.
    expect(loadConfig({ TEMPORAL_UI_PORT: '8633', TEMPORAL_NAMESPACE: 'payments' }).temporalUiUrl).toBe('http://localhost:8633/namespaces/payments/workflows/{id}');
    expect(loadConfig({ TEMPORAL_UI_PORT: '8633', TEMPORAL_UI_URL: 'https://temporal.example.com/w/{id}' }).temporalUiUrl).toBe('https://temporal.example.com/w/{id}');
    for (const bad of ['ui', '70000', '']) expect(() => loadConfig({ TEMPORAL_UI_PORT: bad })).toThrow(/TEMPORAL_UI_PORT/);
  });

  it('gives the reconciler a 60 s lease and a 5 s sweep unless RECONCILE_LEASE_SECONDS and RECONCILE_SWEEP_MS say otherwise', () => {
    expect(loadConfig({})).toMatchObject({ reconcileLeaseMs: 60_000, reconcileSweepMs: 5_000, testCrashAt: null });
    expect(loadConfig({ RECONCILE_LEASE_SECONDS: '2', RECONCILE_SWEEP_MS: '300' })).toMatchObject({ reconcileLeaseMs: 2_000, reconcileSweepMs: 300 });
    expect(() => loadConfig({ RECONCILE_LEASE_SECONDS: '0' })).toThrow(/RECONCILE_LEASE_SECONDS/);
  });

  it('takes the crash-test hook PAYMENTS_TEST_CRASH_AT only outside production, and only a known step', () => {
    expect(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN: 'a-long-admin-token-123', DATA_ENCRYPTION_KEY: 'a-long-data-key-12345', PAYMENTS_TEST_CRASH_AT: 'after_charge_insert' }).testCrashAt).toBe('after_charge_insert');
    expect(() => loadConfig({ PAYMENTS_TEST_CRASH_AT: 'somewhere' })).toThrow(/PAYMENTS_TEST_CRASH_AT/);
    const production = { NODE_ENV: 'production', ADMIN_TOKEN: 'a-long-admin-token-123', DATA_ENCRYPTION_KEY: 'a-long-data-key-12345', SMTP_URL: 'smtp://mail.example.com:587' };
    expect(loadConfig(production).testCrashAt).toBeNull();
    expect(() => loadConfig({ ...production, PAYMENTS_TEST_CRASH_AT: 'after_charge_insert' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, PAYMENTS_TEST_CRASH_AT: 'after_charge_insert' })).toThrow(/PAYMENTS_TEST_CRASH_AT/);
  });

  it('bounds the wait for a database connection at 10 s unless DATABASE_ACQUIRE_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({}).databaseAcquireTimeoutMs).toBe(10_000);
    expect(loadConfig({ DATABASE_ACQUIRE_TIMEOUT_MS: '2500' }).databaseAcquireTimeoutMs).toBe(2_500);
    for (const bad of ['50', 'soon', '']) expect(() => loadConfig({ DATABASE_ACQUIRE_TIMEOUT_MS: bad })).toThrow(/DATABASE_ACQUIRE_TIMEOUT_MS/);
  });

  it('throttles wrong admin tokens at 100 per client address in 15 minutes unless ADMIN_TOKEN_MAX_FAILURES and ADMIN_TOKEN_FAILURE_WINDOW_SECONDS say otherwise', () => {
    expect(loadConfig({}).adminTokenThrottle).toEqual({ maxFailures: 100, windowSeconds: 900 });
    expect(loadConfig({ ADMIN_TOKEN_MAX_FAILURES: '3', ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: '2' }).adminTokenThrottle).toEqual({ maxFailures: 3, windowSeconds: 2 });
    for (const [name, bad] of [['ADMIN_TOKEN_MAX_FAILURES', '0'], ['ADMIN_TOKEN_MAX_FAILURES', ''], ['ADMIN_TOKEN_FAILURE_WINDOW_SECONDS', '0'], ['ADMIN_TOKEN_FAILURE_WINDOW_SECONDS', '1.5']] as const) {
      expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(name));
    }
  });

  it('gives the worker its tuning: the SDK defaults for workflow threads and the sticky timeout, or what is set', () => {
    expect(tuningOptions(loadConfig({}).worker)).toMatchObject({
      maxCachedWorkflows: 1000,
      maxConcurrentWorkflowTaskExecutions: 40,
      workflowThreadPoolSize: 1,
      stickyQueueScheduleToStartTimeout: 10_000,
      // Ten polls for new workflows' first tasks and ten for this worker's sticky queue (the SDK's default: two and eight).
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
      nonStickyToStickyPollRatio: 0.5,
    });
    const tuned = loadConfig({ WORKER_WORKFLOW_THREADS: '2', WORKER_STICKY_TIMEOUT_SECONDS: '60', WORKER_MAX_CACHED_WORKFLOWS: '20', WORKER_WORKFLOW_POLLERS: '8', WORKER_NONSTICKY_POLL_RATIO: '0.25' }).worker;
    expect(tuningOptions(tuned)).toMatchObject({
      maxCachedWorkflows: 20,
      maxConcurrentWorkflowTaskExecutions: 20,
      workflowThreadPoolSize: 2,
      stickyQueueScheduleToStartTimeout: 60_000,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 8 },
      nonStickyToStickyPollRatio: 0.25,
    });
  });

  it('has the worker serve the Temporal SDK metrics only where TEMPORAL_METRICS_BIND_ADDRESS says', () => {
    expect(temporalMetricsRuntimeOptions(loadConfig({}))).toEqual({});
    expect(temporalMetricsRuntimeOptions(loadConfig({ TEMPORAL_METRICS_BIND_ADDRESS: '0.0.0.0:9464' }))).toEqual({
      telemetryOptions: { metrics: { prometheus: { bindAddress: '0.0.0.0:9464' } } },
    });
  });
});
