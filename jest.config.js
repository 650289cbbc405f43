/** One jest run: unit tests and integration tests (real PostgreSQL, real Temporal dev server). */
// `npm run test:cluster` runs four service processes per file beside Temporal's full server:
// one file at a time, and more time for the child processes to start on a small machine.
const cluster = process.env.TEST_TEMPORAL === 'cluster';
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The SDK as merchants import it, from its source (as tsconfig.json's paths).
  moduleNameMapper: { '^@payments-service/sdk$': '<rootDir>/sdk/src/index.ts' },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Every answer of the in-process API is checked against the OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/test/setup/openapi-answers.ts'],
  // The files that take minutes first (test/setup/sequencer.js).
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  testTimeout: cluster ? 180000 : 60000,
  maxWorkers: cluster ? 1 : 2,
};
