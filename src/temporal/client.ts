import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

/**
 * One Temporal client per process, created at start-up and injected where it is needed. With
 * tracing on, its OpenTelemetry interceptor makes a span per start/update/signal under the active
 * span (the HTTP request's, or the activity's that starts a delivery) and passes the trace on in
 * the workflow's headers. With tracing off there is no trace to pass on, so the client has no
 * interceptor: a checkout's start then encodes no empty trace header and makes no no-op span.
 */
export async function createTemporalClient(address: string, namespace: string, options: { traced: boolean }): Promise<Client> {
  // After an outage the channel tries again at most every 2 s (gRPC's default backs off to 2
  // minutes), so requests and readiness follow a Temporal server that came back within seconds.
  const connection = await Connection.connect({ address, channelArgs: { 'grpc.max_reconnect_backoff_ms': 2_000 } });
  return new Client({ connection, namespace, interceptors: { workflow: options.traced ? [new OpenTelemetryWorkflowClientInterceptor()] : [] } });
}
