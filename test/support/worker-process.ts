import { ChildService } from './child-service';
import type { Service } from './harness';

/**
 * The worker as a separate OS process (the real entry point), so a test can kill it with
 * SIGKILL in the middle of work, as a crash would, and start a fresh one.
 */
export class WorkerProcess extends ChildService {
  constructor(service: Service, env: Record<string, string> = {}) {
    super('worker', { ...service.childEnv, ...env });
  }
}
