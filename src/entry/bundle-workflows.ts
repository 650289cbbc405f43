import path from 'node:path';
import { tracedBundlePath, writeWorkflowBundles } from '../worker';

/**
 * Prebuilds the workflow bundles (production and `npm start`): the plain one, and its traced twin
 * that a worker runs when OpenTelemetry tracing is on.
 */
async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  await writeWorkflowBundles(out);
  console.log(`workflow bundles written to ${out} and ${tracedBundlePath(out)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
