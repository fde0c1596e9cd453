/**
 * The daemon's status server: `/health` for a supervisor, `/status` for a human or a script, `/metrics`
 * for Prometheus, and the cockpit: the dashboard at `/` (its script and the chart library served from
 * here, nothing fetched from the network), its live stream at `/events` (server-sent events), and the
 * token-protected controls under `POST /control/…`.
 *
 * Safety, because the page shows a funded account and can flatten it:
 * - it listens on loopback unless `host` is given on purpose (`allowNonLoopback`);
 * - every request's `Host` header must be a loopback name (or the configured host, or one listed), so
 *   a DNS-rebinding page that resolves its own name to 127.0.0.1 reads nothing;
 * - it answers no CORS: no `Access-Control-*` header ever, `OPTIONS` is refused, and a control request
 *   carrying an `Origin` other than this server's is refused;
 * - the controls need `Authorization: Bearer <token>` (compared in constant time) and a JSON body;
 *   without a configured token they answer 403 and the dashboard is read-only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../core/errors.js';
import { isLoopbackHost, listenOn } from '../core/net.js';
import type { PipelineMetrics } from './metrics.js';

export interface StatusServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. A non-loopback address needs `allowNonLoopback`. */
  host?: string;
  /** The config named `status.host` itself: binding elsewhere than loopback is then the user's choice. */
  allowNonLoopback?: boolean;
  /** Extra names accepted in the `Host` header. */
  allowedHosts?: readonly string[];
  /** The body of `/status`, built on each request. */
  status: () => unknown | Promise<unknown>;
  /** `/health` answers 200 while this says healthy, else 503. */
  health: () => { healthy: boolean; detail?: unknown };
  metrics: PipelineMetrics;
  dashboard?: DashboardRoutes;
  /** Without it (no token configured) the control endpoints answer 403. */
  control?: ControlRoutes;
}

export interface DashboardRoutes {
  /** Static files by path (`/`, `/assets/…`): type and body. */
  readonly files: ReadonlyMap<string, { readonly type: string; readonly body: string }>;
  /** What the page needs, with equity points after `afterSeq`. */
  state(afterSeq: number): unknown;
  /** Sequence number of the newest equity point in a state (where the next update starts). */
  seqOf(state: unknown): number;
  readonly pushIntervalMs: number;
}

export interface ControlCall {
  readonly kind: 'strategies' | 'accounts' | 'orders';
  readonly target: string;
  readonly action: string;
  readonly actor: string;
  readonly origin: string;
  readonly reason: string;
}

export interface ControlRoutes {
  readonly token: string;
  /** Runs the action; throws `{ status: 404 }`-like errors for unknown targets (see `statusOf`). */
  handle(call: ControlCall): unknown;
  /** HTTP status of an error `handle` threw (404 for an unknown target), else 500. */
  statusOf(error: unknown): number;
}

export interface StatusServer {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY = 4096;
const MAX_STREAMS = 16;
const CONTROL_PATH = /^\/control\/(strategies|accounts|orders)\/([^/]{1,200})\/([a-z_]{1,32})$/;
const ACTIONS: Record<ControlCall['kind'], readonly string[]> = {
  strategies: ['pause', 'resume'],
  accounts: ['flatten', 'resume'],
  orders: ['cancel'],
};

/** The host part of a `Host` header (`[::1]:8787` → `::1`, `Localhost:80` → `localhost`). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.indexOf(':');
  return colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.slice(0, colon) : h;
}

export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.allowNonLoopback) {
    throw new ConfigError('status.host', `must be a loopback address unless set on purpose in the config, got '${host}'`);
  }
  const accepted = new Set([...LOOPBACK, host.toLowerCase(), ...(options.allowedHosts ?? []).map((h) => hostName(h))]);
  const tokenDigest = options.control ? digest(options.control.token) : undefined;
  const streams = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const send = (code: number, type: string, body: string, extra: Record<string, string> = {}): void => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
      res.end(body);
    };
    const json = (code: number, body: unknown): void => send(code, 'application/json', JSON.stringify(body, jsonReplacer, 2));
    const hostHeader = req.headers.host;
    if (hostHeader === undefined || !accepted.has(hostName(hostHeader))) {
      return json(403, { error: 'host_not_allowed', message: `this server answers only to ${[...accepted].join(', ')} in the Host header` });
    }
    if (req.method === 'POST' && path.startsWith('/control/')) return void control(req, res, path, json);
    if (req.method !== 'GET') return json(405, { error: 'method_not_allowed' });
    const file = options.dashboard?.files.get(path);
    if (file) {
      return send(200, file.type, file.body, {
        'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      });
    }
    if (path === '/events' && options.dashboard) return stream(res, options.dashboard, Number(query.get('after') ?? -1));
    void (async () => {
      try {
        if (path === '/health') {
          const h = options.health();
          return json(h.healthy ? 200 : 503, { status: h.healthy ? 'ok' : 'unhealthy', detail: h.detail ?? null });
        }
        if (path === '/status') return json(200, await options.status());
        if (path === '/metrics') return send(200, options.metrics.registry.contentType, await options.metrics.text());
        return json(404, { error: 'not_found' });
      } catch (err) {
        return json(500, { error: 'status_failed', message: (err as Error).message });
      }
    })();
  });

  function stream(res: ServerResponse, dashboard: DashboardRoutes, after: number): void {
    if (streams.size >= MAX_STREAMS) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'too_many_streams' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', connection: 'keep-alive' });
    streams.add(res);
    let seq = Number.isInteger(after) ? after : -1;
    const push = (): void => {
      try {
        const state = dashboard.state(seq);
        seq = dashboard.seqOf(state);
        res.write(`event: state\ndata: ${JSON.stringify(state, jsonReplacer)}\n\n`);
      } catch (err) {
        res.write(`event: failure\ndata: ${JSON.stringify({ message: (err as Error).message })}\n\n`);
      }
    };
    push();
    const timer = setInterval(push, dashboard.pushIntervalMs);
    timer.unref();
    res.on('close', () => {
      clearInterval(timer);
      streams.delete(res);
    });
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string, json: (code: number, body: unknown) => void): Promise<void> {
    const routes = options.control;
    if (!routes || !tokenDigest) {
      return json(403, { error: 'read_only', message: 'no control token is configured (status.controlTokenEnv): the dashboard is read-only' });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}`) return json(403, { error: 'origin_not_allowed', message: `requests from ${origin} are refused` });
    const auth = req.headers.authorization ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (given === '' || !timingSafeEqual(digest(given), tokenDigest)) {
      return json(401, { error: 'unauthorized', message: 'expected Authorization: Bearer <control token>' });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return json(415, { error: 'unsupported_media_type', message: 'expected a JSON body (Content-Type: application/json)' });
    }
    const m = CONTROL_PATH.exec(path);
    const kind = m?.[1] as ControlCall['kind'] | undefined;
    if (!m || !kind || !ACTIONS[kind].includes(m[3]!)) {
      return json(404, { error: 'not_found', message: 'controls: /control/strategies/<name>/pause|resume, /control/accounts/<id>/flatten|resume, /control/orders/<id>/cancel' });
    }
    let body: { actor?: unknown; reason?: unknown };
    try {
      body = await readJson(req);
    } catch (err) {
      return json(400, { error: 'bad_request', message: (err as Error).message });
    }
    const text = (v: unknown, fallback: string, key: string): string => {
      if (v === undefined || v === null || v === '') return fallback;
      if (typeof v !== 'string' || v.length > 200) throw new Error(`${key}: expected a string of at most 200 characters`);
      // One line in the log and the store, whatever the client sent.
      return v.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    };
    let call: ControlCall;
    try {
      call = {
        kind,
        target: decodeURIComponent(m[2]!),
        action: m[3]!,
        actor: text(body.actor, 'dashboard', 'actor'),
        reason: text(body.reason, '', 'reason'),
        origin: `${req.socket.remoteAddress ?? 'unknown'}`,
      };
    } catch (err) {
      return json(400, { error: 'bad_request', message: (err as Error).message });
    }
    try {
      return json(200, routes.handle(call));
    } catch (err) {
      return json(routes.statusOf(err), { error: 'control_failed', message: (err as Error).message });
    }
  }

  await listenOn(server, options.port, host, 'status.port');
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function readJson(req: IncomingMessage): Promise<{ actor?: unknown; reason?: unknown }> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`body larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve({});
      try {
        const v = JSON.parse(text) as unknown;
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return reject(new Error('expected a JSON object such as {"actor":"me","reason":"…"}'));
        resolve(v as { actor?: unknown; reason?: unknown });
      } catch {
        reject(new Error('the body is not valid JSON'));
      }
    });
  });
}

/** Decimals and Dates already serialise through their toJSON; bigints need this. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
