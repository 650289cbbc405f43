import { throttledAddress } from '../../src/http/admin-token-throttle';

describe('the address wrong admin tokens are counted under', () => {
  it('is an IPv4 address as it is, also when written as IPv4-mapped IPv6', () => {
    expect(throttledAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(throttledAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is an IPv6 address\'s /64, however the rest of it is written', () => {
    expect(throttledAddress('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttledAddress('2001:db8:1:3::1')).not.toBe(throttledAddress('2001:db8:1:2::1'));
  });

  it('is the value itself when it is no address, and "unknown" without one (a closed socket)', () => {
    expect(throttledAddress(undefined)).toBe('unknown');
    expect(throttledAddress('not-an-address')).toBe('not-an-address');
  });
});
