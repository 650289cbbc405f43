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
 * The address's range as ipaddr.js names it, and `ipv4Compatible` for the IPv4-compatible block
 * (::a.b.c.d, deprecated by RFC 4291), which ipaddr.js calls plain unicast although a host or a
 * tunnel may carry it to the IPv4 address inside (::127.0.0.1, ::169.254.169.254). Only `unicast`
 * is public: every other range (loopback, private, link-local, carrier-grade NAT, IPv4-mapped,
 * NAT64 `64:ff9b::/96`, site-local `fec0::/10`, 6to4, Teredo, reserved, ...) can lead back into a
 * private network.
 */
export function addressRange(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv6 && isIPv4Compatible(parsed)) return 'ipv4Compatible';
  return parsed.range();
}

/** ::a.b.c.d: the first 96 bits zero, except :: and ::1 themselves. */
function isIPv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((p) => p === 0) && !(parts[6] === 0 && parts[7]! <= 1);
}

/**
 * The IPv4 address an IPv6 address carries by construction, where the network may deliver to it:
 * IPv4-compatible (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96 and the local
 * 64:ff9b:1::/48, the last 32 bits) and 6to4 (2002:AABB:CCDD::/48). Null for any other address.
 */
export function embeddedIPv4(address: string): string | null {
  const parsed = ipaddr.parse(address);
  if (!(parsed instanceof ipaddr.IPv6)) return null;
  const p = parsed.parts;
  const fromWords = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString();
  if (isIPv4Compatible(parsed) || parsed.isIPv4MappedAddress()) return fromWords(p[6]!, p[7]!);
  const range = parsed.range();
  if (range === 'rfc6052') return fromWords(p[6]!, p[7]!);
  if (range === '6to4') return fromWords(p[1]!, p[2]!);
  return null;
}

/**
 * Public when its own range is plain unicast and any IPv4 address it embeds is public too (the
 * embedding ranges are refused whatever they carry; the second test keeps that true if a range
 * is ever let through).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || addressRange(address) !== 'unicast') return false;
  const embedded = embeddedIPv4(address);
  return embedded === null || addressRange(embedded) === 'unicast';
}

/** The range as a refusal names it: with the IPv4 address inside and its range, where there is one. */
function describeRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const embedded = embeddedIPv4(address);
  return embedded === null ? addressRange(address) : `${addressRange(address)}, embedding ${embedded}: ${addressRange(embedded)}`;
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
      throw new WebhookTargetRefused(`host ${host} resolves to ${refused.address} (${describeRange(refused.address)}), which is not a public address`);
    }
  }
  return addresses;
}
