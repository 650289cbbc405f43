import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ANSWER_MISMATCH_REPORT, takeAnswerMismatches } from '../support/openapi-answers';

/**
 * An answer that contradicts the OpenAPI document (test/support/openapi-answers.ts) fails the test
 * that got it (one answered in beforeAll fails the file's first test). With OPENAPI_ANSWERS=report
 * it is listed in test-results/openapi-answer-mismatches.txt instead, with the test that got it,
 * to see every mismatch of a run at once.
 */
function onMismatches(): void {
  const found = takeAnswerMismatches();
  if (found.length === 0) return;
  if (process.env.OPENAPI_ANSWERS !== 'report') throw new Error(`answers that contradict the OpenAPI document:\n${found.join('\n')}`);
  mkdirSync(dirname(ANSWER_MISMATCH_REPORT), { recursive: true });
  appendFileSync(ANSWER_MISMATCH_REPORT, `${expect.getState().testPath ?? ''} › ${expect.getState().currentTestName ?? '(file)'}\n${found.map((line) => `  ${line}`).join('\n')}\n`);
}

afterEach(onMismatches);
afterAll(onMismatches);
