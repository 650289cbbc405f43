import { bundleWorkflowCode, NativeConnection, Worker, type Logger, type RuntimeOptions, type State, type WorkerOptions } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createActivities, type ActivityDeps } from '../activities';
import { createChargeReconciler } from '../activities/reconcile';
import { startReconciler } from './charges/reconciler';
import { startTracing, WORKFLOW_INTERCEPTOR_MODULES, workerTracingOptions, type Tracing } from './observability/tracing';
import type { Config, WorkerRole, WorkerTuning } from './config';
import { startExpirySweeper } from './checkouts/expiry';
import { startOutboxSweeper } from './events/sweeper';
import { createMailer } from './identity/mailer';
import { startMailSweeper } from './identity/mail-outbox';
import { startIdempotencyKeyExpiry } from './http/idempotency-expiry';
import { startHeartbeat } from './health/heartbeat';
import { roleRunsSweeps, roleTaskQueues } from './temporal/task-queues';

export interface WorkerSetup {
  deps: ActivityDeps;
  /**
   * A prebuilt bundle (production, tests), written by writeWorkflowBundles; with tracing on the
   * worker runs its traced twin. Without it the worker bundles workflows/ itself.
   */
  workflowBundlePath?: string;
  taskQueue?: string;
  /** A connection to share (a worker per task queue in one process); without one the worker opens its own. */
  connection?: NativeConnection;
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
  const connection = setup.connection ?? (await NativeConnection.connect({ address: config.temporalAddress }));
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
 * A worker process's Temporal workers: one per task queue its role polls (WORKER_ROLE,
 * roleTaskQueues), on one connection. Every one of them runs every workflow and activity, so a
 * workflow on either queue (one started before its kind moved queues, say) finds a worker there.
 * Each has the tuning's slots and cache of its own.
 */
export interface RoleWorkers {
  workers: Worker[];
  connection: NativeConnection;
  /** Runs every worker until it is shut down; when one fails the others are shut down and its error is thrown. */
  run(): Promise<void>;
  /** Starts the shutdown of every worker still running (run() resolves once they have drained). */
  shutdown(): void;
  /** RUNNING while every worker runs, else the first other state: what the worker's health endpoint reports. */
  getState(): State;
}

export async function createRoleWorkers(setup: Omit<WorkerSetup, 'taskQueue' | 'connection'>, role: WorkerRole): Promise<RoleWorkers> {
  const connection = await NativeConnection.connect({ address: setup.deps.config.temporalAddress });
  const workers: Worker[] = [];
  for (const taskQueue of roleTaskQueues(setup.deps.config, role)) workers.push((await createWorker({ ...setup, taskQueue, connection })).worker);
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    workers,
    connection,
    shutdown,
    getState: () => workers.map((worker) => worker.getState()).find((state) => state !== 'RUNNING') ?? 'RUNNING',
    async run() {
      const runs = workers.map((worker) => worker.run());
      try {
        await Promise.all(runs);
      } catch (error) {
        shutdown();
        await Promise.allSettled(runs);
        throw error;
      }
    },
  };
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
 * The worker process's own periodic work, beside its Temporal workers. Background work, run by
 * the `background` and `all` roles: the outbox's sweep (events whose writer crashed before
 * dispatching them), expiry's (checkouts whose timer runs late), idempotency keys' (stored answers
 * past their 24 hours), the reconciler's (charges an interrupted attempt left unsettled) and the
 * mail outbox's (dashboard mails not sent yet). The `interactive` role sweeps expiries too, for
 * checkouts later than `EXPIRY_BACKSTOP_GRACE_MS`: a few statements a batch, at normal priority, so
 * a background worker stopped or far behind delays expiries by seconds, not by its backlog. Every role
 * writes a heartbeat for each task queue it polls (readiness counts them). Returns a stop that
 * waits for a running sweep.
 */
export function startWorkerSweeps(deps: ActivityDeps, role: WorkerRole = 'all'): () => Promise<void> {
  const stops = [startHeartbeat(deps, roleTaskQueues(deps.config, role))];
  if (roleRunsSweeps(role)) {
    const { settleInterrupted } = createChargeReconciler(deps);
    stops.push(
      startOutboxSweeper(deps, deps.config.outboxSweepMs),
      startExpirySweeper(deps, { intervalMs: deps.config.expirySweepMs, graceMs: deps.config.expirySweepGraceMs }),
      startIdempotencyKeyExpiry(deps, deps.config.idempotencySweepMs),
      startReconciler(deps, { intervalMs: deps.config.reconcileSweepMs, leaseMs: deps.config.reconcileLeaseMs, settle: settleInterrupted }),
      startMailSweeper({ ...deps, mailer: createMailer(deps.config, deps.logger) }, deps.config.mailSweepMs),
    );
  } else {
    stops.push(startExpirySweeper(deps, { intervalMs: deps.config.expirySweepMs, graceMs: deps.config.expiryBackstopGraceMs }));
  }
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
