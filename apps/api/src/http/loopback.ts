/**
 * Whether a listen address (HOST) or a Host header's name reaches only this machine: `localhost`,
 * 127.0.0.0/8 or ::1. Demo sign-in is on by default only there (SPEC §6c).
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0'); // false: every interface
 */
import { isIPv4, isIPv6 } from 'node:net';

export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIPv4(name)) return name.startsWith('127.');
  if (isIPv6(name)) return name === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(name) || /^::ffff:127\./.test(name);
  return false;
}

/**
 * Whether a request's `Host` header names this machine by a loopback name or address. A server
 * on a loopback HOST answers only such requests: a page of another site can point its own name at
 * 127.0.0.1 (DNS rebinding) and would then count as the app's own origin, with demo sign-in open
 * to it. An IP literal cannot be rebound, so only loopback ones pass; other names need PUBLIC_URL.
 */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  try {
    return isLoopbackHost(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}
