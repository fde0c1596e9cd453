/**
 * Loopback checks, for the places that must not reach or serve beyond this machine by accident: the
 * HTTP client's plain-http rule, the sandbox's bind address and the admin surface's peers.
 */

/** Whether a host name or address is this machine: `localhost`, 127.0.0.0/8 or ::1 (brackets allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  const m = /^(?:::ffff:)?127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m !== null && m.slice(1).every((part) => Number(part) <= 255);
}
