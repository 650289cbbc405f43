// The dashboard's pages, the hosted checkout page and the operations routes in the OpenAPI document.
import { z } from 'zod';
import { DashboardSession, operation, TAGS } from '../../http/openapi-operation';
import { DASHBOARD_PAGES } from './routes';

const session = [{ [DashboardSession.name]: [] }];

operation({ method: 'get', path: '/dashboard/login', id: 'dashboardSignInPage', tag: TAGS.dashboard, summary: 'The sign-in page', responses: { 200: ['HTML'] }, htmlResponse: true });
operation({ method: 'get', path: '/dashboard', id: 'dashboardHome', tag: TAGS.dashboard, security: session, summary: 'The dashboard (the review queue); redirects to the sign-in page without a session', responses: { 200: ['HTML'], 303: ['To /dashboard/login'] }, htmlResponse: true });
operation({
  method: 'get', path: '/dashboard/{page}', id: 'dashboardPage', tag: TAGS.dashboard, security: session, summary: 'A dashboard page; redirects to the sign-in page without a session',
  params: z.object({ page: z.enum(DASHBOARD_PAGES).openapi({ description: 'The page.' }) }), responses: { 200: ['HTML'], 303: ['To /dashboard/login'] }, htmlResponse: true,
  errors: { 404: 'Not a page of the dashboard (a browser gets a page saying so).' },
});
operation({
  method: 'get', path: '/checkout/{id}', id: 'walletPage', tag: TAGS.wallet, summary: "The hosted checkout page (the checkout's url)",
  params: z.object({ id: z.string().openapi({ description: 'The checkout id.' }) }), query: z.object({ client_secret: z.string().openapi({ description: "The checkout's client secret." }) }),
  responses: { 200: ['HTML'] }, htmlResponse: true,
});
operation({ method: 'get', path: '/healthz', id: 'healthz', tag: TAGS.operations, summary: 'Liveness: the process is up', responses: { 200: ['Up', z.object({ status: z.literal('ok') })] } });
operation({
  method: 'get', path: '/readyz', id: 'readyz', tag: TAGS.operations, summary: 'Readiness: the database and Temporal answer and a worker polls the task queue',
  responses: { 200: ['Ready', z.object({ status: z.string(), checks: z.object({ database: z.string(), temporal: z.string() }) })], 503: ['Not ready', z.object({ status: z.string(), checks: z.object({ database: z.string(), temporal: z.string() }) })] },
});
operation({
  method: 'get', path: '/metrics', id: 'metrics', tag: TAGS.operations, summary: 'Prometheus metrics of this API process (keep it off the public network)',
  responses: { 200: ['Prometheus text exposition format (text/plain)'] },
});
operation({ method: 'get', path: '/api/v1/openapi.json', id: 'openApiDocument', tag: TAGS.operations, summary: 'This document', responses: { 200: ['OpenAPI 3.1', z.record(z.string(), z.unknown())] } });
operation({ method: 'get', path: '/docs', id: 'apiReference', tag: TAGS.operations, summary: 'This document, rendered (Swagger UI, served locally)', responses: { 200: ['HTML'] }, htmlResponse: true });
operation({
  method: 'options', path: '/api/v1/device_pings', id: 'devicePingPreflight', tag: TAGS.operations, summary: 'CORS preflight of POST /api/v1/device_pings (any origin may call it)',
  responses: { 204: ['Allowed: Access-Control-Allow-Origin *, methods POST, headers Authorization, Content-Type, Idempotency-Key'] },
});
