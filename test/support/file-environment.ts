import { startService, type Service, type ServiceOptions } from './harness';
import { WebhookReceiver } from './receiver';

/** What a test file that receives webhooks runs against: the service and a merchant's endpoint. */
export interface FileEnvironment {
  service: Service;
  receiver: WebhookReceiver;
}

export interface FileEnvironmentOptions {
  /** Passed to startService. */
  service?: ServiceOptions;
  /** Runs inside the same beforeAll once both are up (onboarding, extra processes, a browser). */
  afterStart?: (env: FileEnvironment) => Promise<void>;
  /** Runs inside the same afterAll before either stops (whatever afterStart started that uses them). */
  beforeStop?: () => Promise<void>;
  /** The beforeAll's timeout, where start-up is slower than the default test timeout allows. */
  timeoutMs?: number;
}

/**
 * Registers the file's beforeAll and afterAll: a webhook receiver, then the service (one
 * environment per file); `bind` hands both to the file's own variables before afterStart runs.
 * The service stops before the receiver, so deliveries still in flight while the worker shuts
 * down reach an endpoint that answers. Call it at the top level of a file (or of a describe).
 */
export function useServiceWithReceiver(bind: (env: FileEnvironment) => void, options: FileEnvironmentOptions = {}): void {
  let env: Partial<FileEnvironment> = {};
  beforeAll(async () => {
    const receiver = await new WebhookReceiver().start();
    env = { receiver };
    const service = await startService(options.service);
    const started: FileEnvironment = { service, receiver };
    env = started;
    bind(started);
    await options.afterStart?.(started);
  }, options.timeoutMs);
  afterAll(async () => {
    await options.beforeStop?.();
    await env.service?.stop();
    await env.receiver?.stop();
  });
}
