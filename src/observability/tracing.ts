import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Config } from '../config';
import { routeTemplateOf } from './metrics';
import type { SendResult } from '../webhooks/send';

/** The tracer of our own spans (HTTP server, webhook POSTs); Temporal's interceptors name theirs. */
export const TRACER_NAME = 'payments-service';

/**
 * The workflow-side interceptors (spans for the workflow, its activities and child workflows,
 * headers carrying the trace). A module path, because it runs inside the workflow sandbox. Only
 * the traced bundle has it: the SDK instantiates every module a workflow imports once per
 * workflow (its module cache is per workflow, even in a reused V8 context), and this module
 * brings OpenTelemetry's trace SDK, about 350 modules, into each open checkout's memory and each
 * replay's CPU. It only adds headers, never commands, so either bundle replays any history.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

export interface Tracing {
  /** False when no endpoint (and no test exporter) is configured: the OTel API stays a no-op. */
  enabled: boolean;
  /** Receives the workflow spans the worker's sink carries out of the sandbox. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  /** From OTEL_EXPORTER_OTLP_ENDPOINT; null leaves tracing off. */
  otlpEndpoint: string | null;
  /** Tests: spans go here (synchronously) instead of OTLP. */
  exporter?: SpanExporter;
}

/**
 * Tracing is on only when an OTLP endpoint is configured (or a test passes its exporter). Then a
 * global tracer provider is registered (async-local context, W3C trace context propagation) and
 * spans leave in batches over OTLP http/protobuf; the exporter reads the standard OTEL_EXPORTER_OTLP_*
 * variables itself. Off, nothing is registered and every span is the API's no-op.
 */
export function startTracing(options: TracingOptions): Tracing {
  const resource = new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME || options.serviceName });
  const processor = chooseSpanProcessor(options);
  if (!processor) {
    return { enabled: false, spanProcessor: new NoopSpanProcessor(), resource, shutdown: async () => undefined };
  }
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  return {
    enabled: true,
    spanProcessor: processor,
    resource,
    shutdown: async () => {
      await provider.shutdown();
      // Lets a later startTracing in the same process (tests) register its own provider.
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The config switch: a test exporter, else OTLP when an endpoint is set, else nothing. */
export function chooseSpanProcessor(options: Pick<TracingOptions, 'otlpEndpoint' | 'exporter'>): SpanProcessor | null {
  if (options.exporter) return new SimpleSpanProcessor(options.exporter);
  if (options.otlpEndpoint) return new BatchSpanProcessor(new OTLPTraceExporter());
  return null;
}

export function tracingOptionsFrom(config: Pick<Config, 'otlpEndpoint'>, serviceName: string): TracingOptions {
  return { serviceName, otlpEndpoint: config.otlpEndpoint };
}

/**
 * What the worker adds for tracing: Temporal's activity interceptors (a RunActivity span under
 * the workflow's StartActivity span), the sink that exports workflow spans, and, with tracing on
 * and no prebuilt bundle, the workflow interceptor module (a prebuilt traced bundle has it built
 * in; the SDK warns if given both).
 */
export function workerTracingOptions(
  tracing: Pick<Tracing, 'enabled' | 'spanProcessor' | 'resource'>,
  options: { bundled: boolean } = { bundled: true },
): { interceptors: WorkerInterceptors; sinks: InjectedSinks<OpenTelemetrySinks> } {
  return {
    interceptors: {
      ...(tracing.enabled && !options.bundled ? { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } : {}),
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/**
 * A server span per HTTP request, continuing a caller's `traceparent` if it sent one. The span is
 * the active context while the request is handled, so the Temporal client's spans (StartWorkflow,
 * UpdateWorkflow) become its children. Named by route template at the end, never by raw path.
 */
export function httpServerSpans(): RequestHandler {
  const tracer = trace.getTracer(TRACER_NAME);
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
    res.once('finish', () => endServerSpan(span, req, res));
    res.once('close', () => endServerSpan(span, req, res));
    context.with(trace.setSpan(parent, span), next);
  };
}

function endServerSpan(span: Span, req: Request, res: Response): void {
  if (!span.isRecording()) return;
  const route = routeTemplateOf(req);
  if (route) {
    span.updateName(`${req.method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', res.statusCode);
  if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * A client span around one webhook POST (deliveries and the hold handshake). Its context goes out
 * as a W3C `traceparent` header; the signature covers `<t>.<body>` only, never headers.
 */
export async function withWebhookSpan(
  attributes: { url: string; eventId: string; eventType: string; channel: string },
  send: (traceHeaders: Record<string, string>) => Promise<SendResult>,
): Promise<SendResult> {
  const url = new URL(attributes.url);
  const spanAttributes = {
    'http.request.method': 'POST',
    'server.address': url.hostname,
    'url.full': `${url.origin}${url.pathname}`,
    'payments.event.id': attributes.eventId,
    'payments.event.type': attributes.eventType,
    'payments.webhook.channel': attributes.channel,
  };
  return trace.getTracer(TRACER_NAME).startActiveSpan(`POST webhook ${attributes.eventType}`, { kind: SpanKind.CLIENT, attributes: spanAttributes }, async (span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    try {
      const result = await send(headers);
      if (result.httpStatus !== null) span.setAttribute('http.response.status_code', result.httpStatus);
      span.setAttribute('payments.webhook.outcome', result.outcome);
      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.outcome });
      return result;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
