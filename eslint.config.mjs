// Lint is a wall around the workflow sandbox: workflow code must stay deterministic, so it may not
// import Node built-ins or our database, HTTP and processor layers, and may not drop promises.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'sdk/dist/**', 'sdk/src/generated/**', 'examples/*/node_modules/**', 'src/wallet/static/**', 'coverage/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // Only src/storage/ speaks SQL (dependency-cruiser keeps knex and pg imports there; this catches
    // a query built on a database handle passed in from outside).
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/storage/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "CallExpression[callee.type='Identifier'][callee.name=/^(db|trx|knex)$/]",
          "CallExpression[callee.type='MemberExpression'][callee.property.name='db']",
          "MemberExpression[object.name=/^(db|trx|knex)$/][property.name=/^(raw|fn|schema|queryBuilder)$/]",
        ].map((selector) => ({ selector, message: 'Only src/storage/ speaks SQL: add a storage function and call it.' })),
      ],
    },
  },
  {
    // A workflow or an activity reads on one screen: past this, split it into named steps.
    files: ['workflows/**/*.ts', 'activities/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, 'knex', 'pg', 'express', 'pino', '@temporalio/client', '@temporalio/activity', '@temporalio/worker'].map((name) => ({
            name,
            message: 'Workflow code runs in the deterministic sandbox: do this in an activity.',
          })),
          patterns: [
            { group: ['../src/*', '../src/**'], message: 'Workflows reach the service only through activities (import type from ../activities).', allowTypeImports: true },
            { group: ['../activities', '../activities/*'], message: 'Import activities as types only, through proxyActivities.', allowTypeImports: true },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }, { name: 'setInterval', message: 'Use sleep() in a loop.' }],
    },
  },
);
