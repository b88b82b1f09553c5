/**
 * Who the client is, by address (SPEC §6c), for the limits that count per client: the socket's
 * peer, unless the peer is one of TRUSTED_PROXIES; then X-Forwarded-For is read from the right,
 * each hop that is a trusted proxy skipped, and the first that is not is the client. What a client
 * wrote further left is its own claim and never read: only the hops our proxies appended count.
 *
 * Limits key IPv6 clients by their /64 ({@link addressKey}): one subscriber usually holds a whole
 * /64, so counting by /128 would hand a guesser 2^64 fresh addresses.
 *
 * @example
 * const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8']);
 * clientAddress('10.1.2.3', '203.0.113.7, 10.0.0.5', proxies); // '203.0.113.7'
 */
import { BlockList, isIP } from 'node:net';

export interface TrustedProxies {
  has(address: string): boolean;
}

/**
 * One entry of TRUSTED_PROXIES as [address, prefix length, family], or null when it is neither
 * an IP address nor a CIDR range (`10.0.0.0/8`, `fd00::/8`).
 */
export function parseProxyEntry(entry: string): [string, number, 'ipv4' | 'ipv6'] | null {
  const [raw = '', prefix, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  const address = normalizeAddress(raw);
  const family = address === null ? 0 : isIP(address);
  if (address === null || family === 0) return null;
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  if (!(bits >= 0 && bits <= max)) return null;
  return [address, bits, family === 4 ? 'ipv4' : 'ipv6'];
}

/** The matcher of a TRUSTED_PROXIES list (config.ts has checked each entry). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  let any = false;
  for (const entry of entries) {
    const parsed = parseProxyEntry(entry);
    if (!parsed) continue;
    list.addSubnet(parsed[0], parsed[1], parsed[2]);
    any = true;
  }
  return {
    has(address) {
      if (!any) return false;
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * An address as it is compared and counted: an IPv4-mapped IPv6 peer (`::ffff:127.0.0.1`, a
 * server listening on `::`) as IPv4, without an IPv6 zone, brackets or an IPv4 port (as some
 * proxies write X-Forwarded-For); null when it is not an IP address.
 */
export function normalizeAddress(raw: string): string | null {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  a = a.split('%', 1)[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  return isIP(a) === 0 ? null : a.toLowerCase();
}

/** The client's address for a request from `peer` carrying `forwardedFor`; null without a peer. */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  proxies: TrustedProxies,
): string | null {
  const from = peer === undefined ? null : normalizeAddress(peer);
  if (from === null || !proxies.has(from) || forwardedFor === undefined) return from;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let client = from;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    // Not an address: no proxy of ours wrote it, so nothing left of it is known; the last
    // trusted hop is the nearest thing to the client there is.
    if (hop === null) break;
    client = hop;
    if (!proxies.has(hop)) break;
  }
  return client;
}

/**
 * The key a limit counts an address under: an IPv4 address itself, an IPv6 address's /64
 * (`2001:db8:1:2::/64`); anything else (`in-process`) as it is.
 */
export function addressKey(address: string): string {
  const a = normalizeAddress(address);
  if (a === null) return address;
  if (isIP(a) === 4) return a;
  const groups = ipv6Groups(a);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : a;
}

/** An IPv6 address's eight 16-bit groups (it has been checked by isIP). */
function ipv6Groups(address: string): number[] | null {
  let a = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head = '', tail] = a.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}
