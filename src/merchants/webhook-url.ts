import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ValidationError } from '../http/errors';

/** Loopback, private, link-local and other non-public ranges a webhook must not reach in production. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::1', 128], ['::', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * In production a webhook URL that resolves to a private address is refused (it would let a
 * merchant make the service call into its own network); development allows local receivers.
 */
export async function assertWebhookUrlAllowed(
  url: string | null,
  options: { production: boolean; allowPrivateWebhookUrls: boolean },
): Promise<void> {
  if (url === null) return;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ValidationError('webhook_url must be an http or https URL.', 'Use https:// in production.');
  }
  if (!options.production || options.allowPrivateWebhookUrls) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new ValidationError('webhook_url host does not resolve.', `Check the host name ${host}.`);
  if (addresses.some(isPrivateAddress)) {
    throw new ValidationError(
      'webhook_url resolves to a private address.',
      'Production webhooks must reach a public address (operators may set ALLOW_PRIVATE_WEBHOOK_URLS=true).',
    );
  }
}
