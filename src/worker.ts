import { bundleWorkflowCode, NativeConnection, Worker, type Logger, type RuntimeOptions, type WorkerOptions } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createActivities, type ActivityDeps } from '../activities';
import { createChargeReconciler } from '../activities/reconcile';
import { startReconciler } from './charges/reconciler';
import { startTracing, WORKFLOW_INTERCEPTOR_MODULES, workerTracingOptions, type Tracing } from './observability/tracing';
import type { Config, WorkerTuning } from './config';
import { startExpirySweeper } from './checkouts/expiry';
import { startOutboxSweeper } from './events/sweeper';
import { createMailer } from './identity/mailer';
import { startMailSweeper } from './identity/mail-outbox';
import { startIdempotencyKeyExpiry } from './http/idempotency-expiry';
import { startHeartbeat } from './health/heartbeat';

export interface WorkerSetup {
  deps: ActivityDeps;
  /**
   * A prebuilt bundle (production, tests), written by writeWorkflowBundles; with tracing on the
   * worker runs its traced twin. Without it the worker bundles workflows/ itself.
   */
  workflowBundlePath?: string;
  taskQueue?: string;
  /** Tests set 0 so every workflow task replays its history and non-determinism shows up. */
  maxCachedWorkflows?: number;
  /** Workflow tests run the real workflows against fake activities (slow, failing, racing). */
  activities?: object;
  /** The process's tracing; without it the workflow spans' sink still exists and drops them. */
  tracing?: Pick<Tracing, 'enabled' | 'spanProcessor' | 'resource'>;
}

export function workflowsPath(): string {
  return path.resolve(__dirname, '../workflows');
}

/**
 * Modules loaded once per V8 context and shared by every workflow in it, instead of once per
 * workflow (the SDK's default, which keeps one workflow's module-level state from leaking into
 * another). Our workflow modules keep no module-level state (test/workflows/workflow-bundles.test.ts checks):
 * their exports are constants, queries, updates and workflow functions, which the SDK deep-freezes.
 * Per workflow this saves instantiating our modules and what they import (@temporalio/workflow's
 * index, OpenTelemetry's API): memory per cached workflow, CPU per replay.
 *
 * None with tracing: the traced bundle's OpenTelemetry interceptor loads the rest of
 * OpenTelemetry's API per workflow, and that API's lazily set singletons cannot live in frozen
 * shared modules, so the traced twin keeps the SDK's default.
 */
export function preloadedWorkflowModules(traced: boolean): string[] {
  return traced ? [] : [workflowsPath()];
}

/**
 * Temporal's own worker metrics (task latencies, slots, pollers), the SDK's way: its Core runtime
 * serves Prometheus on `TEMPORAL_METRICS_BIND_ADDRESS`. For `Runtime.install`, before any connection.
 */
export function temporalMetricsRuntimeOptions(config: Pick<Config, 'temporalMetricsBindAddress'>): Pick<RuntimeOptions, 'telemetryOptions'> {
  return config.temporalMetricsBindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: config.temporalMetricsBindAddress } } } } : {};
}

/** The traced twin of a prebuilt bundle: the same workflows with Temporal's OpenTelemetry interceptors. */
export function tracedBundlePath(bundlePath: string): string {
  return bundlePath.replace(/\.js$/, '') + '.traced.js';
}

/**
 * Prebuilds the workflow bundle and its traced twin (tracedBundlePath), so a worker starts
 * without running webpack and every worker of a deployment runs byte-identical workflow code.
 */
export async function writeWorkflowBundles(bundlePath: string, logger?: Logger): Promise<void> {
  const bundles = [
    { out: bundlePath, traced: false, workflowInterceptorModules: [] },
    { out: tracedBundlePath(bundlePath), traced: true, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES },
  ];
  for (const { out, traced, workflowInterceptorModules } of bundles) {
    const { code } = await bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      workflowInterceptorModules: [...workflowInterceptorModules],
      preloadModules: preloadedWorkflowModules(traced),
      logger,
    });
    await writeFile(out, code);
  }
}

export async function createWorker(setup: WorkerSetup): Promise<{ worker: Worker; connection: NativeConnection }> {
  const { config } = setup.deps;
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const processTracing = setup.tracing ?? startTracing({ serviceName: 'payments-worker', otlpEndpoint: null });
  const bundlePath = setup.workflowBundlePath && (processTracing.enabled ? tracedBundlePath(setup.workflowBundlePath) : setup.workflowBundlePath);
  const tracing = workerTracingOptions(processTracing, { bundled: Boolean(bundlePath) });
  const options: WorkerOptions = {
    connection,
    // Temporal's OpenTelemetry interceptors; the traced bundle has the workflow one built in.
    interceptors: tracing.interceptors,
    sinks: tracing.sinks,
    namespace: config.temporalNamespace,
    taskQueue: setup.taskQueue ?? config.taskQueue,
    activities: setup.activities ?? createActivities(setup.deps),
    ...(bundlePath
      ? { workflowBundle: { codePath: bundlePath } }
      : { workflowsPath: workflowsPath(), bundlerOptions: { preloadModules: preloadedWorkflowModules(processTracing.enabled) } }),
    ...tuningOptions(config.worker, setup.maxCachedWorkflows),
  };
  return { worker: await Worker.create(options), connection };
}

/**
 * Slots, pollers, cache, workflow threads and the sticky timeout from the configuration
 * (docs/configuration.md, "Worker tuning").
 * The cache holds at least as many workflows as run tasks at once, as the SDK requires.
 */
export function tuningOptions(tuning: WorkerTuning, maxCachedWorkflows = tuning.maxCachedWorkflows): Partial<WorkerOptions> {
  const workflowTasks = maxCachedWorkflows > 0 ? Math.min(tuning.maxConcurrentWorkflowTaskExecutions, Math.max(2, maxCachedWorkflows)) : tuning.maxConcurrentWorkflowTaskExecutions;
  return {
    maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: workflowTasks,
    maxConcurrentActivityTaskExecutions: tuning.maxConcurrentActivityTaskExecutions,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(tuning.workflowPollers, workflowTasks) },
    nonStickyToStickyPollRatio: tuning.nonStickyPollRatio,
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(tuning.activityPollers, tuning.maxConcurrentActivityTaskExecutions) },
    workflowThreadPoolSize: tuning.workflowThreads,
    stickyQueueScheduleToStartTimeout: tuning.stickyTimeoutMs,
  };
}

/**
 * The worker process's own sweeps, beside its Temporal worker: the outbox's (events whose writer
 * crashed before dispatching them), expiry's (checkouts whose timer runs late), idempotency keys'
 * (stored answers past their 24 hours), the reconciler's (charges an interrupted attempt left
 * unsettled) and the mail outbox's (dashboard mails not sent yet). Returns a stop that waits for a running sweep.
 */
export function startWorkerSweeps(deps: ActivityDeps): () => Promise<void> {
  const { settleInterrupted } = createChargeReconciler(deps);
  const stops = [
    startOutboxSweeper(deps, deps.config.outboxSweepMs),
    startExpirySweeper(deps, { intervalMs: deps.config.expirySweepMs, graceMs: deps.config.expirySweepGraceMs }),
    startIdempotencyKeyExpiry(deps, deps.config.idempotencySweepMs),
    startReconciler(deps, { intervalMs: deps.config.reconcileSweepMs, leaseMs: deps.config.reconcileLeaseMs, settle: settleInterrupted }),
    startMailSweeper({ ...deps, mailer: createMailer(deps.config, deps.logger) }, deps.config.mailSweepMs),
    startHeartbeat(deps),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
