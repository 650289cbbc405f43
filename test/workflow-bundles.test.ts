import { readFileSync } from 'node:fs';
import { startTracing, workerTracingOptions } from '../src/observability/tracing';
import { tracedBundlePath } from '../src/worker';

/**
 * The SDK instantiates every module a workflow imports once per workflow, so what the bundle
 * imports is paid per open checkout in memory and per replay in CPU. With tracing off the worker
 * runs the plain bundle, which must not carry OpenTelemetry's trace SDK (about 350 modules); the
 * traced twin does, for workers with tracing on.
 */
describe('the workflow bundles', () => {
  const plain = readFileSync(process.env.WORKFLOW_BUNDLE_PATH!, 'utf8');
  const traced = readFileSync(tracedBundlePath(process.env.WORKFLOW_BUNDLE_PATH!), 'utf8');
  const TRACE_SDK = ['@opentelemetry/sdk-trace-base', '@temporalio/interceptors-opentelemetry/lib/workflow'];

  it('keep the trace SDK and Temporal workflow interceptors out of the plain bundle', () => {
    for (const module of TRACE_SDK) expect(plain).not.toContain(`node_modules/${module}`);
    expect(plain.length).toBeLessThan(traced.length / 1.5);
  });

  it('build the interceptors into the traced twin', () => {
    for (const module of TRACE_SDK) expect(traced).toContain(`node_modules/${module}`);
  });

  it('name the traced twin beside the plain bundle', () => {
    expect(tracedBundlePath('/app/dist/workflow-bundle.js')).toBe('/app/dist/workflow-bundle.traced.js');
  });

  it('give a self-bundling worker the workflow interceptors only with tracing on', async () => {
    const off = startTracing({ serviceName: 'bundles', otlpEndpoint: null });
    expect(workerTracingOptions(off, { bundled: false }).interceptors.workflowModules).toBeUndefined();
    const on = startTracing({ serviceName: 'bundles', otlpEndpoint: null, exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined } });
    expect(workerTracingOptions(on, { bundled: false }).interceptors.workflowModules).toHaveLength(1);
    expect(workerTracingOptions(on, { bundled: true }).interceptors.workflowModules).toBeUndefined();
    await on.shutdown();
  });
});
