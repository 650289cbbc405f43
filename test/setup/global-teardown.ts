import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { dropDatabase } from '../../src/storage/db';

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__PAYMENTS_TEST__ as
    | { env: TestWorkflowEnvironment | null; databaseUrl: string }
    | undefined;
  if (!state) return;
  await state.env?.teardown();
  if (!process.env.KEEP_TEST_DATABASE) await dropDatabase(state.databaseUrl);
}
