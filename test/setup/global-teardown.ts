import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { dropTestDatabasesWithPrefix } from '../support/test-database';
import type { RunningMailpit } from '../support/mailpit';
import { stopStripeMock, type StripeMock } from '../support/stripe-mock';

export default async function globalTeardown(): Promise<void> {
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
