// The module layers, checked by `npm run lint:deps` (docs/architecture.md, "Layers"):
//   routes (the request layer) -> services -> storage (the only SQL) and the Temporal client;
//   workflows/ stays a deterministic sandbox; no import cycles; features do not import the
//   dashboards; identity is imported through its public surface.
// test/unit/layers.test.ts runs these rules on test/fixtures/layers, where each one is broken once.
/**
 * The request layer: every module outside src/http/ that handles requests (imports express).
 * Each resource's handlers live in routes.ts or <name>-routes.ts; the few middleware modules and
 * the HTTP set-up are named here.
 */
const REQUEST_LAYER = [
  '^src/[^/]+/[a-z-]*routes\\.ts$',
  '^src/dashboards/[^/]+/[a-z-]*routes\\.ts$',
  '^src/dashboards/kit/pages\\.ts$',
  '^src/app\\.ts$',
  '^src/wallet/auth\\.ts$',
  '^src/identity/admin-guard\\.ts$',
  '^src/identity/middleware\\.ts$',
  '^src/identity/route-access\\.ts$',
  '^src/observability/(metrics|tracing|worker-http)\\.ts$',
];

/** The modules that wire the app and the worker together: they may reach any module's internals. */
const COMPOSITION_ROOTS = ['^src/(app|openapi|worker|runtime)\\.ts$', '^src/entry/'];

/** What modules outside src/identity may import of it: its index and the leaf modules (the actor and scope types, the audit log, the role tables). */
const IDENTITY_SURFACE = '^src/identity/(index|context|audit|merchant-roles|operator-roles)\\.ts$';

/** Packages that speak SQL: only storage may use them (as values; the Db type travels everywhere). */
const SQL_PACKAGES = 'node_modules/(knex|pg|pg-[a-z-]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle ties modules that should depend one way; type-only imports count too.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'express-only-in-request-layer',
      comment: 'Only the request layer handles requests: name a module of handlers routes.ts or <name>-routes.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/http/', '^src/entry/', ...REQUEST_LAYER] },
      to: { path: 'node_modules/(@types/)?express(-serve-static-core)?/' },
    },
    {
      name: 'request-layer-not-to-storage',
      comment: 'Routes call services; services call storage.',
      severity: 'error',
      from: { path: REQUEST_LAYER },
      to: { path: '^src/storage/', pathNot: '^src/storage/db\\.ts$' },
    },
    {
      name: 'request-layer-storage-handle-as-type-only',
      comment: 'A route may hand the database handle (the Db type) to a service, never use it.',
      severity: 'error',
      from: { path: REQUEST_LAYER },
      to: { path: '^src/storage/db\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'request-layer-not-to-temporal',
      comment: 'Routes call services; services start workflows and send updates.',
      severity: 'error',
      from: { path: REQUEST_LAYER, pathNot: '^src/observability/' },
      to: { path: ['node_modules/@temporalio/client/', '^src/temporal/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'features-not-to-dashboards',
      comment: 'The dashboards build on the features, never the other way: a feature (or its routes) does not import src/dashboards/ for a helper.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: '^src/dashboards/' },
      to: { path: '^src/dashboards/' },
    },
    {
      name: 'identity-through-its-public-surface',
      comment:
        'Outside src/identity, import identity from src/identity/index.ts or its leaf modules (context, audit, the role tables), never its internals; the composition roots wire it.',
      severity: 'error',
      from: { pathNot: ['^src/identity/', ...COMPOSITION_ROOTS] },
      to: { path: '^src/identity/', pathNot: IDENTITY_SURFACE },
    },
    {
      name: 'sql-only-in-storage',
      comment: 'Only src/storage/ speaks SQL; elsewhere the database handle is passed as a type.',
      severity: 'error',
      from: { pathNot: '^src/storage/' },
      to: { path: SQL_PACKAGES, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'storage-raises-domain-errors',
      comment: 'Storage raises its own errors; a service or the error mapping turns them into HTTP answers.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: ['^src/http/', '^src/[^/]+/[a-z-]*routes\\.ts$', '^src/[^/]+/service\\.ts$'] },
    },
    {
      name: 'storage-imports-down-only',
      comment: 'Storage builds on the domain and the configuration only; what it needs from above comes in as types.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { pathNot: ['^src/(storage|domain)/', '^src/config\\.ts$', 'node_modules/'], dependencyTypesNot: ['type-only', 'core'] },
    },
    {
      name: 'src-not-to-activities',
      comment: 'Activities run in the worker; only the composition roots (worker, runtime, entry points) build them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/worker\\.ts$', '^src/runtime\\.ts$', '^src/entry/'] },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-sandbox-no-node-builtins',
      comment: 'Workflow code runs in the deterministic sandbox: do this in an activity.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workflow-sandbox-no-io-packages',
      comment: 'Workflow code runs in the deterministic sandbox: no database, HTTP, logger or client-side Temporal packages.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: 'node_modules/(knex|pg|express|pino|@temporalio/(client|activity|worker))/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-sandbox-no-storage',
      comment: 'Workflows reach the database only through activities.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^src/storage/' },
    },
    {
      name: 'workflow-sandbox-types-only',
      comment: 'Workflows reach activities (through proxyActivities) and the service as types only.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: ['^activities/', '^src/'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The browser code of the hosted page and the dashboard is served as is, not part of the layers.
    exclude: { path: ['^src/(wallet|docs)/static/', '^src/dashboards/[^/]+/static/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
