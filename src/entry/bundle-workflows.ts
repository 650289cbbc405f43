import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { workflowsPath } from '../worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../observability/tracing';

/**
 * Prebuilds the workflow bundle (production and `npm start`), so a worker starts without
 * running webpack and every worker of a deployment runs byte-identical workflow code.
 */
async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES });
  await writeFile(out, code);
  console.log(`workflow bundle written to ${out}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
