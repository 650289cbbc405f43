import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

/**
 * One Temporal client per process, created at start-up and injected where it is needed. Its
 * OpenTelemetry interceptor makes a span per start/update/signal under the active span (the HTTP
 * request's, or the activity's that starts a delivery) and passes the trace on in the workflow's
 * headers; with tracing off it uses the API's no-op tracer.
 */
export async function createTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
}
