import { addressRange, embeddedIPv4, isPublicAddress, resolveWebhookTarget, WebhookTargetRefused } from '../../src/webhooks/target';

describe('webhook target addresses (ipaddr.js ranges)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['2002:7f00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  // Audit regression: ipaddr.js calls the IPv4-compatible block (::a.b.c.d, deprecated by RFC 4291)
  // plain unicast, so ::127.0.0.1 and ::169.254.169.254 passed as public addresses.
  it.each([
    ['::7f00:1', 'ipv4Compatible', '127.0.0.1'],
    ['::a9fe:a9fe', 'ipv4Compatible', '169.254.169.254'],
    ['::a00:1', 'ipv4Compatible', '10.0.0.1'],
    ['::808:808', 'ipv4Compatible', '8.8.8.8'],
    // ipaddr.js reads the dotted text of the IPv4-compatible form as IPv4-mapped: refused all the same.
    ['::127.0.0.1', 'ipv4Mapped', '127.0.0.1'],
    ['::ffff:169.254.169.254', 'ipv4Mapped', '169.254.169.254'],
    ['64:ff9b::169.254.169.254', 'rfc6052', '169.254.169.254'],
    ['2002:a9fe:a9fe::1', '6to4', '169.254.169.254'],
  ])('refuses %s (%s, embedding %s)', (address, range, embedded) => {
    expect(addressRange(address)).toBe(range);
    expect(embeddedIPv4(address)).toBe(embedded);
    expect(isPublicAddress(address)).toBe(false);
  });

  it('names the embedded IPv4 address and its range when it refuses an IPv6 form of it', async () => {
    const never = async () => [];
    await expect(resolveWebhookTarget(new URL('http://[::127.0.0.1]/'), { allowPrivate: false }, never)).rejects.toThrow(
      'host ::7f00:1 resolves to ::7f00:1 (ipv4Compatible, embedding 127.0.0.1: loopback), which is not a public address',
    );
    await expect(resolveWebhookTarget(new URL('http://[64:ff9b::a9fe:a9fe]/'), { allowPrivate: false }, never)).rejects.toThrow('(rfc6052, embedding 169.254.169.254: linkLocal)');
  });

  it.each(['::', '::1', '2606:4700::1111', '8.8.8.8'])('finds no embedded IPv4 address in %s', (address) => {
    expect(embeddedIPv4(address)).toBeNull();
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses a host when any one of its addresses is private, and one that does not resolve', async () => {
    const url = new URL('https://mixed.example.test/h');
    const mixed = async () => [{ address: '8.8.8.8', family: 4 as const }, { address: '10.0.0.1', family: 4 as const }];
    await expect(resolveWebhookTarget(url, { allowPrivate: false }, mixed)).rejects.toThrow(WebhookTargetRefused);
    await expect(resolveWebhookTarget(url, { allowPrivate: true }, mixed)).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(resolveWebhookTarget(url, { allowPrivate: true }, async () => [])).rejects.toThrow('does not resolve');
  });

  it('checks IP literals without resolving them', async () => {
    const never = async () => {
      throw new Error('must not resolve a literal');
    };
    await expect(resolveWebhookTarget(new URL('http://[::ffff:10.0.0.1]/'), { allowPrivate: false }, never)).rejects.toThrow('ipv4Mapped');
    await expect(resolveWebhookTarget(new URL('http://8.8.4.4/'), { allowPrivate: false }, never)).resolves.toEqual({ address: '8.8.4.4', family: 4 });
  });
});
