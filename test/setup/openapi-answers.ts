import { takeAnswerMismatches } from '../support/openapi-answers';

/**
 * An answer that contradicts the OpenAPI document (test/support/openapi-answers.ts) fails the test
 * that got it; one answered before the first test (in beforeAll) fails the file's first test.
 */
function failOnMismatches(): void {
  const found = takeAnswerMismatches();
  if (found.length > 0) throw new Error(`answers that contradict the OpenAPI document:\n${found.join('\n')}`);
}

afterEach(failOnMismatches);
afterAll(failOnMismatches);
