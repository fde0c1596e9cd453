/**
 * The daemon's status endpoint, on loopback only: `/health` for a supervisor, `/status` for a human or
 * a dashboard (accounts, guard state, positions, open intents, headroom to every drawdown floor) and
 * `/metrics` for Prometheus.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../core/errors.js';
import type { PipelineMetrics } from './metrics.js';

export interface StatusServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** The body of `/status`, built on each request. */
  status: () => unknown | Promise<unknown>;
  /** `/health` answers 200 while this says healthy, else 503. */
  health: () => { healthy: boolean; detail?: unknown };
  metrics: PipelineMetrics;
}

export interface StatusServer {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new ConfigError('status.host', `must be a loopback address, got '${host}'`);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (code: number, type: string, body: string): void => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') return send(405, 'application/json', JSON.stringify({ error: 'method_not_allowed' }));
    void (async () => {
      try {
        if (path === '/health') {
          const h = options.health();
          return send(h.healthy ? 200 : 503, 'application/json', JSON.stringify({ status: h.healthy ? 'ok' : 'unhealthy', detail: h.detail ?? null }));
        }
        if (path === '/status') return send(200, 'application/json', JSON.stringify(await options.status(), jsonReplacer, 2));
        if (path === '/metrics') return send(200, options.metrics.registry.contentType, await options.metrics.text());
        return send(404, 'application/json', JSON.stringify({ error: 'not_found' }));
      } catch (err) {
        return send(500, 'application/json', JSON.stringify({ error: 'status_failed', message: (err as Error).message }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE' || err.code === 'EACCES'
          ? new ConfigError('status.port', `cannot listen on ${host}:${options.port} (${err.code}); choose another port, 0 for any free one`)
          : err,
      );
    });
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Decimals and Dates already serialise through their toJSON; bigints need this. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
