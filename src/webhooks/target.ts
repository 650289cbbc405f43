// Where a webhook may go. A host is resolved and its address classified on every save, every
// delivery and every hold, and the connection is then pinned to the address that was checked,
// so a name that resolves to a public address when saved and to 127.0.0.1 or 169.254.169.254
// later (DNS rebinding) never reaches an internal service.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; injected so tests control what a name resolves to. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface TargetPolicy {
  /** False in production unless ALLOW_PRIVATE_WEBHOOK_URLS=true; development allows local receivers. */
  allowPrivate: boolean;
}

export function targetPolicy(config: { nodeEnv: string; allowPrivateWebhookUrls: boolean }): TargetPolicy {
  return { allowPrivate: config.nodeEnv !== 'production' || config.allowPrivateWebhookUrls };
}

/**
 * The address's range as ipaddr.js names it. Only `unicast` is public: every other range
 * (loopback, private, link-local, carrier-grade NAT, IPv4-mapped, NAT64 `64:ff9b::/96`,
 * site-local `fec0::/10`, 6to4, Teredo, reserved, ...) can lead back into a private network.
 */
export function addressRange(address: string): string {
  return ipaddr.parse(address).range();
}

export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && addressRange(address) === 'unicast';
}

/** Raised when a webhook target's host does not resolve or resolves to an address the policy refuses. */
export class WebhookTargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetRefused';
  }
}

/**
 * Resolves the URL's host and checks every address it resolves to (one private answer is
 * enough to refuse: a resolver may rotate answers). Answers the first address to connect to.
 */
export async function resolveWebhookTarget(url: URL, policy: TargetPolicy, resolve: HostResolver = systemResolver): Promise<ResolvedAddress> {
  return (await resolveWebhookTargets(url, policy, resolve))[0]!;
}

/**
 * Every address of the URL's host, in the resolver's order, once all passed the check: the
 * connection may go to any of them (the next when one takes no connection), and to no other.
 */
export async function resolveWebhookTargets(url: URL, policy: TargetPolicy, resolve: HostResolver = systemResolver): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    addresses = await resolve(host).catch(() => []);
  }
  if (addresses.length === 0) throw new WebhookTargetRefused(`host ${host} does not resolve`);
  if (!policy.allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      const range = ipaddr.isValid(refused.address) ? addressRange(refused.address) : 'invalid';
      throw new WebhookTargetRefused(`host ${host} resolves to ${refused.address} (${range}), which is not a public address`);
    }
  }
  return addresses;
}
