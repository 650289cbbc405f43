// Prometheus metrics (prom-client). The API and the worker are separate processes, so each has
// its own registry and endpoint: the API's /metrics has HTTP traffic and business gauges read
// from the database at scrape time (charges by status and processor, outbox backlog, open
// checkouts), which are true whichever process wrote them; the worker's /metrics (its health
// port) has what only the worker sees as it happens: webhook and hold attempts, their outcomes
// and latency. Temporal's own worker metrics come from the SDK's Prometheus exporter.
import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../storage/db';
import type { SendOutcome } from '../webhooks/send';
import { registerBusinessGauges } from './business-gauges';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const ROUTE_TEMPLATE = Symbol('routeTemplate');
const ROUTE = Symbol('route');
type RoutedRequest = Request & { [ROUTE_TEMPLATE]?: string; [ROUTE]?: unknown };

/** The request prototypes (one per Express app) whose `route` already records its template. */
const recording = new WeakSet<object>();

/**
 * The template of the route that handles the request, with its router's mount path. Express sets
 * req.route when a route matches, while req.baseUrl is still the router's; by the time the
 * response finishes, baseUrl has been restored, so the template is captured at that moment, by a
 * setter on the app's request prototype (every request of the app is made of it), defined once.
 */
function recordRouteTemplates(req: Request): void {
  const prototype = Object.getPrototypeOf(req) as object;
  if (recording.has(prototype)) return;
  recording.add(prototype);
  Object.defineProperty(prototype, 'route', {
    configurable: true,
    enumerable: true,
    get(this: RoutedRequest) {
      return this[ROUTE];
    },
    set(this: RoutedRequest, value: { path?: unknown } | undefined) {
      this[ROUTE] = value;
      if (value && typeof value.path === 'string') {
        this[ROUTE_TEMPLATE] = value.path === '/' && this.baseUrl ? this.baseUrl : `${this.baseUrl}${value.path}`;
      }
    },
  });
}

/** The route template of a finished request (metrics and trace span names), if a route matched. */
export function routeTemplateOf(req: Request): string | undefined {
  return (req as RoutedRequest)[ROUTE_TEMPLATE];
}

/** The API process's metrics: HTTP per route, and database-derived gauges. */
export function createApiMetrics(db: Db) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'payments_api_' });
  const requests = new Counter({
    name: 'payments_http_requests_total',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'payments_http_request_duration_seconds',
    help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  registerBusinessGauges(registry, db);

  /** Records every request under its route template (never the raw path: ids would explode the series). */
  const middleware: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    recordRouteTemplates(req);
    res.on('finish', () => {
      const route = (req as RoutedRequest)[ROUTE_TEMPLATE] ?? 'unmatched';
      stop({ method: req.method, route });
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  return { registry, middleware };
}

/** The worker process's metrics, recorded where webhooks and holds are sent. */
export const workerRegistry = new Registry();
collectDefaultMetrics({ register: workerRegistry, prefix: 'payments_worker_' });

const webhookAttempts = new Counter({
  name: 'payments_webhook_attempts_total',
  help: 'Webhook delivery attempts by channel (outbox = retried delivery, hold = the hold handshake) and outcome',
  labelNames: ['channel', 'outcome'] as const,
  registers: [workerRegistry],
});
const webhookLatency = new Histogram({
  name: 'payments_webhook_attempt_duration_seconds',
  help: 'Webhook attempt latency by channel, until the merchant answered, timed out or was refused',
  labelNames: ['channel'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [workerRegistry],
});

export function recordWebhookAttempt(channel: 'outbox' | 'hold', outcome: SendOutcome, durationMs: number): void {
  webhookAttempts.inc({ channel, outcome });
  webhookLatency.observe({ channel }, durationMs / 1000);
}

const checkoutsExpired = new Counter({
  name: 'payments_checkouts_expired_total',
  help: "Checkouts expired, by who recorded it: the checkout workflow's timer, or the sweep for timers running late",
  labelNames: ['by'] as const,
  registers: [workerRegistry],
});

/** A sweep that expires checkouts often means the worker falls behind its timers: add workers. */
export function recordCheckoutsExpired(by: 'timer' | 'sweep', count: number): void {
  checkoutsExpired.inc({ by }, count);
}

export function metricsHandler(registry: Registry): RequestHandler {
  return async (_req, res) => {
    res.set('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  };
}
