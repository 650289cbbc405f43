import { existsSync, readFileSync } from 'node:fs';
import { ANSWER_MISMATCH_REPORT } from '../support/openapi-answers';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { dropTestDatabasesWithPrefix } from '../support/test-database';
import type { RunningMailpit } from '../support/mailpit';
import { stopStripeMock, type StripeMock } from '../support/stripe-mock';

export default async function globalTeardown(): Promise<void> {
  if (existsSync(ANSWER_MISMATCH_REPORT)) {
    const lines = readFileSync(ANSWER_MISMATCH_REPORT, 'utf8').split('\n').filter((line) => line.startsWith('  ')).length;
    console.log(`\nOpenAPI: ${lines} answers contradicted the document; listed in ${ANSWER_MISMATCH_REPORT} (OPENAPI_ANSWERS=report lists them instead of failing their tests)`);
  }
  const state = (globalThis as Record<string, unknown>).__PAYMENTS_TEST__ as
    | { env: TestWorkflowEnvironment | null; databasePrefix: string; mailpit: RunningMailpit; stripeMock?: StripeMock }
    | undefined;
  if (!state) return;
  await state.env?.teardown();
  await state.mailpit.stop();
  if (state.stripeMock) await stopStripeMock(state.stripeMock);
  // The template and any copy a crashed file did not drop.
  if (!process.env.KEEP_TEST_DATABASE) await dropTestDatabasesWithPrefix(state.databasePrefix);
}
