import { Client, Connection, isRetryableError, makeGrpcRetryInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

/**
 * The client's own gRPC retries (the SDK's defaults, but pausing at most 1 s): the SDK's default
 * pause grows to 5 s, which a retry sleeps out even past the request's deadline
 * (src/temporal/deadlines.ts), so a request's answer could come seconds after its deadline.
 */
const GRPC_RETRY = {
  maxAttempts: 10,
  factor: 1.7,
  maxPauseMs: 1_000,
  initialPauseMs: (code: number) => (code === 8 /* RESOURCE_EXHAUSTED */ ? 1_000 : 100),
} as const;

type GrpcInterceptor = ReturnType<typeof makeGrpcRetryInterceptor>;

/**
 * The retries of one call, within its deadline (the request's reach, src/temporal/deadlines.ts): a
 * pause ends at the deadline at the latest, and none begins after it, so a call that cannot reach
 * Temporal fails at its deadline, not up to a pause later.
 */
const grpcRetry: GrpcInterceptor = (options, nextCall) => {
  const deadline = options.deadline === undefined ? Number.POSITIVE_INFINITY : new Date(options.deadline).getTime();
  return makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => attempt < GRPC_RETRY.maxAttempts && isRetryableError(status) && Date.now() < deadline,
    delayFunction: (attempt, status) => {
      const pause = Math.min(GRPC_RETRY.maxPauseMs, GRPC_RETRY.factor ** attempt * GRPC_RETRY.initialPauseMs(status.code)) * (0.8 + Math.random() * 0.4);
      return Math.max(0, Math.min(pause, deadline - Date.now()));
    },
  })(options, nextCall);
};

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
  const connection = await Connection.connect({ address, interceptors: [grpcRetry], channelArgs: { 'grpc.max_reconnect_backoff_ms': 2_000 } });
  return new Client({ connection, namespace, interceptors: { workflow: options.traced ? [new OpenTelemetryWorkflowClientInterceptor()] : [] } });
}
