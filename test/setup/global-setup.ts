import { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase } from '../../src/storage/db';
import { openApiDocument } from '../../src/openapi';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { writeWorkflowBundles } from '../../src/worker';
import { priorityDevServerArgs } from '../../src/temporal/server-config';
import { startMailpit } from '../support/mailpit';
import { startStripeMock } from '../support/stripe-mock';
import { ANSWER_MISMATCH_REPORT } from '../support/openapi-answers';

/**
 * Once per `npm test`: a migrated template database (createScratchDatabase, as the benchmarks make
 * theirs), which every service copies into a database of its own (test/support/test-database.ts) so
 * that no file's sweepers see another file's rows; an ephemeral Temporal dev server on free ports,
 * so two runs never collide; stripe-mock on a free port, for the Stripe connector (STRIPE_MOCK_HOST,
 * STRIPE_MOCK_PORT); and the workflow bundle, built once for every file.
 * With TEST_TEMPORAL=cluster (`npm run test:cluster`), Temporal's server on PostgreSQL instead.
 * And a Mailpit on free ports: every service sends its mails there (SMTP_URL), and tests read them
 * through its HTTP API (MAILPIT_URL, test/support/mailpit.ts). And the OpenAPI document, which every
 * file checks its service's answers against (OPENAPI_DOCUMENT_PATH).
 */
export default async function globalSetup(): Promise<void> {
  rmSync(ANSWER_MISMATCH_REPORT, { force: true });
  // payments_test_<pid>_tpl_<random>; its copies are payments_test_<pid>_<random>.
  const prefix = `payments_test_${process.pid}`;
  const templateUrl = await createScratchDatabase(`${prefix}_tpl`);

  const env = process.env.TEST_TEMPORAL === 'cluster' ? null : await startDevServer();
  const mailpit = await startMailpit();
  const stripeMock = await startStripeMock();

  const bundleDir = mkdtempSync(path.join(tmpdir(), 'payments-bundle-'));
  // The production bundles (src/entry/bundle-workflows.ts): plain, and traced for workers with tracing on.
  const bundlePath = path.join(bundleDir, 'workflow-bundle.js');
  await writeWorkflowBundles(bundlePath, quietLogger);
  // The OpenAPI document every file checks its answers against (test/support/openapi-answers.ts), generated once.
  const documentPath = path.join(bundleDir, 'openapi.json');
  writeFileSync(documentPath, JSON.stringify(openApiDocument('http://127.0.0.1')));

  // Against the cluster (`npm run test:cluster`), TEMPORAL_ADDRESS is the one scripts/temporal-cluster.sh started.
  const address = env ? env.connection.options.address : clusterAddress();
  Object.assign(process.env, {
    TEST_TEMPLATE_DATABASE_URL: templateUrl,
    TEMPORAL_ADDRESS: address,
    WORKFLOW_BUNDLE_PATH: bundlePath,
    OPENAPI_DOCUMENT_PATH: documentPath,
    SMTP_URL: mailpit.smtpUrl,
    MAILPIT_URL: mailpit.apiUrl,
    STRIPE_MOCK_HOST: stripeMock.host,
    STRIPE_MOCK_PORT: String(stripeMock.port),
  });
  (globalThis as Record<string, unknown>).__PAYMENTS_TEST__ = { env, databasePrefix: `${prefix}_`, mailpit, stripeMock };
}

/**
 * Events after which Temporal suggests continuing as new (4,096 by default): low here, so tests cross
 * it; TEST_CONTINUE_AS_NEW_EVENTS sets another (a long property run at 40 crosses it every few attempts).
 */
const TEST_SUGGEST_CONTINUE_AS_NEW_EVENTS = Number(process.env.TEST_CONTINUE_AS_NEW_EVENTS ?? 100);

async function startDevServer(): Promise<TestWorkflowEnvironment> {
  const executablePath = process.env.TEMPORAL_CLI_PATH;
  if (!executablePath) throw new Error('TEMPORAL_CLI_PATH is not set: run the tests with `npm test`');
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: executablePath },
      searchAttributes: SEARCH_ATTRIBUTES,
      extraArgs: ['--log-level', 'error', '--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${TEST_SUGGEST_CONTINUE_AS_NEW_EVENTS}`, ...priorityDevServerArgs()],
    },
  });
}

function clusterAddress(): string {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEST_TEMPORAL=cluster needs TEMPORAL_ADDRESS: run the tests with `npm run test:cluster`');
  return address;
}

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
