import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { startTracing, workerTracingOptions } from '../../src/observability/tracing';
import { preloadedWorkflowModules, tracedBundlePath, workflowsPath } from '../../src/worker';

/** Top-level declarations of a workflow module that would hold state shared by every workflow. */
function moduleLevelState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(source);
      if (!(list.flags & ts.NodeFlags.Const)) found.push(`${name}: let/var`);
      const init = declaration.initializer;
      // Object.freeze cannot freeze a collection's entries, so a module-level Map or Set would be shared.
      if (init && ts.isNewExpression(init) && /^(Map|Set|WeakMap|WeakSet|Array)$/.test(init.expression.getText(source))) found.push(`${name}: ${init.getText(source)}`);
    }
  }
  return found;
}

/**
 * The SDK instantiates every module a workflow imports once per workflow, so what the bundle
 * imports is paid per open checkout in memory and per replay in CPU. With tracing off the worker
 * runs the plain bundle, which must not carry OpenTelemetry's trace SDK (about 350 modules); the
 * traced twin does, for workers with tracing on. The plain bundle preloads our own workflow
 * modules, so those are instantiated once per V8 context rather than once per workflow.
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

  it('load our workflow modules once per V8 context in the plain bundle, once per workflow in the traced twin', () => {
    expect(preloadedWorkflowModules(false)).toEqual([workflowsPath()]);
    expect(preloadedWorkflowModules(true)).toEqual([]);
    const preloaded = (bundle: string) => /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(bundle)?.[1] ?? 'no preload hook';
    expect(preloaded(plain)).toMatch(/__webpack_require__\(.*"\.\/(dist\/)?workflows\/index\.[jt]s"\)/);
    expect(preloaded(traced).trim()).toBe('');
  });

  it('keep the preloaded workflow modules free of module-level state (no let, var, Map or Set at the top)', () => {
    const dir = path.resolve(__dirname, '../../workflows');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect({ file, state: moduleLevelState(path.join(dir, file)) }).toEqual({ file, state: [] });
    // The check itself finds what it is for.
    const probe = path.join(os.tmpdir(), `module-state-${process.pid}.ts`);
    writeFileSync(probe, 'export let n = 0;\nconst seen = new Set<string>();\nexport const ok = 1;\n');
    expect(moduleLevelState(probe)).toEqual(['n: let/var', 'seen: new Set<string>()']);
    rmSync(probe);
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
