import { ValidationError } from '../http/errors';
import { resolveWebhookTarget, WebhookTargetRefused, type HostResolver, type TargetPolicy } from '../webhooks/target';

/**
 * A webhook URL is checked when it is saved, so a merchant learns at once that it cannot be
 * used; every delivery and hold checks it again (src/webhooks/send.ts), because what a name
 * resolves to can change after it was saved.
 */
export async function assertWebhookUrlAllowed(url: string | null, policy: TargetPolicy, resolve?: HostResolver): Promise<void> {
  if (url === null) return;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ValidationError('webhook_url must be an http or https URL.', 'Use https:// in production.');
  }
  if (policy.allowPrivate) return;
  try {
    await resolveWebhookTarget(parsed, policy, resolve);
  } catch (error) {
    if (!(error instanceof WebhookTargetRefused)) throw error;
    throw new ValidationError(
      `webhook_url refused: ${error.message}.`,
      'Production webhooks must reach a public address (operators may set ALLOW_PRIVATE_WEBHOOK_URLS=true).',
    );
  }
}
