/**
 * Loopback checks, for the places that must not reach or serve beyond this machine by accident: the
 * HTTP client's plain-http rule, the sandbox's bind address and the admin surface's peers. And the
 * listening both servers do, refused by the setting that chose the port.
 */
import type { Server } from 'node:net';
import { ConfigError } from './errors.js';

/** Whether a host name or address is this machine: `localhost`, 127.0.0.0/8 or ::1 (brackets allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  const m = /^(?:::ffff:)?127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m !== null && m.slice(1).every((part) => Number(part) <= 255);
}

/** The codes that mean the address cannot be had: taken, not allowed, or not this machine's. */
const REFUSED = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

/**
 * `server.listen(port, host)`, refused with a ConfigError at `key` (the setting or flag that chose the
 * port) when the address cannot be had; `busy` says who may hold a port in use. Other errors as they are.
 */
export function listenOn(
  server: Server,
  port: number,
  host: string,
  key: string,
  options: { busy?: string; file?: string } = {},
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException): void => {
      if (!REFUSED.has(err.code ?? '')) return reject(err);
      const busy = err.code === 'EADDRINUSE' && options.busy !== undefined ? ` (${options.busy})` : '';
      const where = options.file !== undefined ? { file: options.file } : {};
      reject(new ConfigError(key, `cannot listen on ${host}:${port}: ${err.code}${busy}; choose another port, 0 for any free one`, where));
    };
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}
