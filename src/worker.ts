import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import path from 'node:path';
import { createActivities, type ActivityDeps } from '../activities';
import { startTracing, workerTracingOptions, type Tracing } from './observability/tracing';
import type { WorkerTuning } from './config';

export interface WorkerSetup {
  deps: ActivityDeps;
  /** A prebuilt bundle (production, tests); without it the worker bundles workflows/ itself. */
  workflowBundlePath?: string;
  taskQueue?: string;
  /** Tests set 0 so every workflow task replays its history and non-determinism shows up. */
  maxCachedWorkflows?: number;
  /** Workflow tests run the real workflows against fake activities (slow, failing, racing). */
  activities?: object;
  /** The process's tracing; without it the workflow spans' sink still exists and drops them. */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'>;
}

export function workflowsPath(): string {
  return path.resolve(__dirname, '../workflows');
}

export async function createWorker(setup: WorkerSetup): Promise<{ worker: Worker; connection: NativeConnection }> {
  const { config } = setup.deps;
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const tracing = workerTracingOptions(setup.tracing ?? startTracing({ serviceName: 'payments-worker', otlpEndpoint: null }), { bundled: Boolean(setup.workflowBundlePath) });
  const options: WorkerOptions = {
    connection,
    // Temporal's OpenTelemetry interceptors; a prebuilt bundle has the workflow one built in (bundle-workflows.ts).
    interceptors: tracing.interceptors,
    sinks: tracing.sinks,
    namespace: config.temporalNamespace,
    taskQueue: setup.taskQueue ?? config.taskQueue,
    activities: setup.activities ?? createActivities(setup.deps),
    ...(setup.workflowBundlePath ? { workflowBundle: { codePath: setup.workflowBundlePath } } : { workflowsPath: workflowsPath() }),
    ...tuningOptions(config.worker, setup.maxCachedWorkflows),
  };
  return { worker: await Worker.create(options), connection };
}

/**
 * Slots, pollers and cache from the configuration (README, "Open checkouts held by one worker").
 * The cache holds at least as many workflows as run tasks at once, as the SDK requires.
 */
function tuningOptions(tuning: WorkerTuning, maxCachedWorkflows = tuning.maxCachedWorkflows): Partial<WorkerOptions> {
  const workflowTasks = maxCachedWorkflows > 0 ? Math.min(tuning.maxConcurrentWorkflowTaskExecutions, Math.max(2, maxCachedWorkflows)) : tuning.maxConcurrentWorkflowTaskExecutions;
  return {
    maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: workflowTasks,
    maxConcurrentActivityTaskExecutions: tuning.maxConcurrentActivityTaskExecutions,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(tuning.workflowPollers, workflowTasks) },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(tuning.activityPollers, tuning.maxConcurrentActivityTaskExecutions) },
  };
}
