import { describe, expect, it } from 'vitest';
import {
  addressKey,
  clientAddress,
  normalizeAddress,
  parseProxyEntry,
  trustedProxies,
} from './client-address.ts';

describe('clientAddress', () => {
  const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);

  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', proxies)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', undefined, trustedProxies([]))).toBe('203.0.113.9');
    expect(clientAddress('127.0.0.1', '198.51.100.1', trustedProxies([]))).toBe('127.0.0.1');
  });

  it('is the rightmost hop that is not a trusted proxy', () => {
    expect(clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.7, 10.1.2.3', proxies)).toBe('203.0.113.7');
    // Several header lines are one list, in order.
    expect(clientAddress('10.0.0.1', ['198.51.100.1, 203.0.113.7', '10.9.9.9'], proxies)).toBe('203.0.113.7');
    expect(clientAddress('::ffff:127.0.0.1', '2001:db8::5', proxies)).toBe('2001:db8::5');
    expect(clientAddress('fd00::1', '[2001:db8::6]:4431, fd12::2', proxies)).toBe('2001:db8::6');
    expect(clientAddress('127.0.0.1', '203.0.113.7:51234', proxies)).toBe('203.0.113.7');
  });

  it('stops at a hop that is not an address, on the last trusted one', () => {
    expect(clientAddress('127.0.0.1', 'unknown, 10.0.0.5', proxies)).toBe('10.0.0.5');
    expect(clientAddress('127.0.0.1', '', proxies)).toBe('127.0.0.1');
    // Every hop trusted: the leftmost is as far as the chain goes.
    expect(clientAddress('127.0.0.1', '10.0.0.7, 10.0.0.8', proxies)).toBe('10.0.0.7');
  });

  it('is null without a peer', () => {
    expect(clientAddress(undefined, '203.0.113.7', proxies)).toBeNull();
  });
});

describe('addressKey', () => {
  it('counts IPv4 by address and IPv6 by /64, however the address is written', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of [
      '2001:DB8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0:0:0:9',
      '2001:db8:1:2::1%eth0',
    ])
      expect(addressKey(same)).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('in-process')).toBe('in-process');
  });
});

describe('TRUSTED_PROXIES entries', () => {
  it('are addresses or CIDR ranges', () => {
    expect(parseProxyEntry('127.0.0.1')).toEqual(['127.0.0.1', 32, 'ipv4']);
    expect(parseProxyEntry(' 10.0.0.0/8 ')).toEqual(['10.0.0.0', 8, 'ipv4']);
    expect(parseProxyEntry('fd00::/8')).toEqual(['fd00::', 8, 'ipv6']);
    for (const bad of ['', 'proxy.local', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '1.2.3.4/x'])
      expect(parseProxyEntry(bad), bad).toBeNull();
  });

  it('normalizeAddress refuses what is not an address', () => {
    expect(normalizeAddress('not-an-ip')).toBeNull();
    expect(normalizeAddress('[::1]')).toBe('::1');
  });
});
