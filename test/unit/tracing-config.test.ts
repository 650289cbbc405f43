import { trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter, NoopSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../src/config';
import { chooseSpanProcessor, startTracing } from '../../src/observability/tracing';

describe('the tracing switch (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('reads the endpoint from the environment, and nothing without it', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).otlpEndpoint).toBeNull();
    expect(loadConfig({ NODE_ENV: 'development', OTEL_EXPORTER_OTLP_ENDPOINT: '' }).otlpEndpoint).toBeNull();
    expect(() => loadConfig({ NODE_ENV: 'development', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(loadConfig({ NODE_ENV: 'development', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).otlpEndpoint).toBe('http://127.0.0.1:4318');
  });

  it('chooses no processor without an endpoint, a batching OTLP one with it', () => {
    expect(chooseSpanProcessor({ otlpEndpoint: null })).toBeNull();
    expect(chooseSpanProcessor({ otlpEndpoint: 'http://127.0.0.1:4318' })).toBeInstanceOf(BatchSpanProcessor);
    expect(chooseSpanProcessor({ otlpEndpoint: null, exporter: new InMemorySpanExporter() })).toBeInstanceOf(SimpleSpanProcessor);
  });

  it('registers no tracer provider when off: spans are the API no-op', async () => {
    const tracing = startTracing({ serviceName: 'payments-api', otlpEndpoint: null });
    expect(tracing.enabled).toBe(false);
    expect(tracing.spanProcessor).toBeInstanceOf(NoopSpanProcessor);
    const span = trace.getTracer('t').startSpan('x');
    expect(span.isRecording()).toBe(false);
    span.end();
    await tracing.shutdown();
  });

  it('registers a provider that records spans when on', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ serviceName: 'payments-api', otlpEndpoint: null, exporter });
    expect(tracing.enabled).toBe(true);
    trace.getTracer('t').startSpan('x').end();
    expect(exporter.getFinishedSpans().map((s) => [s.name, s.resource.attributes['service.name']])).toEqual([['x', 'payments-api']]);
    await tracing.shutdown();
  });
});
