/**
 * The sandbox server: the platform's API on its exact paths, served by the local engine over node:http
 * on 127.0.0.1. Each API key belongs to a configured user; each request runs through
 *   route match (404/405) → injected faults → bearer auth (401) → rate limit (429) → body (400) →
 *   engine clock sync → `engine.exchangeFor(user, { viaApiKey: true })` → wire encoding,
 * and every `ApiError` the engine throws becomes its status and `{ "error": code, "message" }`.
 * The spec's code-less answers (401, 404, and 403 for an order no longer active) carry `"error": null`.
 * An admin surface for tests lives under `/_sandbox/` (see ./admin.ts).
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ApiError, OrderNotActiveError } from '../api/errors.js';
import type { Exchange } from '../api/exchange.js';
import { encodeApiError } from '../api/wire.js';
import { OPERATION_BUCKET } from '../api/exchange.js';
import type { AccountStatus, Order } from '../api/types.js';
import { ConfigError, PropbotError } from '../core/errors.js';
import { isLoopbackHost, listenOn } from '../core/net.js';
import { Engine } from '../engine/index.js';
import type { EngineConfig, WeeklyBreak } from '../engine/index.js';
import { checkAdminToken, handleAdmin, type AdminContext } from './admin.js';
import { bindProblem, defaultSandboxConfig, loadSandboxConfig, type SandboxConfig } from './config.js';
import { FaultInjector, type FaultOptions } from './faults.js';
import { bearerToken, HttpRefusal, parseJson, readBody, sendEmpty, sendError, sendJson } from './http-io.js';
import { MarketFeed, type FeedMarket } from './market-feed.js';
import { CandleReplayTrack, inferCandleMs, RandomWalkTrack, readCandleFile, type PriceTrack } from './price-tracks.js';
import { RateLimiter } from './rate-limiter.js';
import { Router, type RouteAnswer } from './routes.js';
import { SandboxClock } from './sandbox-clock.js';
import type { OrderLedgerEntry, SandboxAccountDescription, SandboxDescription, SandboxHandle, SandboxOptions } from './types.js';

// The types of startSandbox's options and handle, where its callers look for them (defined in ./types.ts).
export type { SandboxAccountDescription, SandboxDescription, SandboxHandle, SandboxOptions } from './types.js';

interface SandboxUser {
  name: string;
  userId: string;
  apiKey: string;
  exchange: Exchange;
}

/** Start the sandbox server; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const config = options.config ?? (options.configFile ? loadSandboxConfig(options.configFile) : defaultSandboxConfig());
  const log = options.log ?? (() => {});
  const host = options.host ?? config.server.host;
  const bind = bindProblem(host, config.adminToken);
  // A config file was checked when loaded; this catches the `host` option and configs built in code.
  if (bind !== undefined) throw new ConfigError('server.host', bind);
  const startMs = config.clock.startMs ?? Date.now();
  const clock = new SandboxClock(config.clock.mode, config.clock.speed, startMs);

  const engineConfig: Partial<EngineConfig> = { startMs, seed: config.seed };
  const engine = new Engine(engineConfig);

  // ── markets and their price tracks ──
  const feedMarkets: FeedMarket[] = [];
  const markets: SandboxDescription['markets'] = [];
  for (const [i, m] of config.markets.entries()) {
    const track = makeTrack(m.price, startMs, `markets.${i}.price`);
    const market = engine.addMarket({
      baseAsset: m.baseAsset,
      id: m.marketId,
      category: m.category,
      price: track.initialPrice,
      ...(m.preset !== undefined ? { preset: m.preset } : {}),
      ...(m.weeklyPauses !== undefined ? { schedule: m.weeklyPauses === null ? null : m.weeklyPauses.map(toWeeklyBreak) } : {}),
      ...(m.overrides !== undefined ? { overrides: m.overrides as never } : {}),
    });
    feedMarkets.push({ marketId: market.id, track });
    markets.push({ id: market.id, baseAsset: market.config.baseAsset, category: market.config.category });
  }

  const feed = new MarketFeed(engine, feedMarkets, (err) => log(`price update failed: ${errorText(err)}`));
  const sync = () => feed.syncTo(clock.now());

  // ── users, keys and accounts ──
  const state = { beforeActMs: config.latency.beforeActMs };
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const usersByKey = new Map<string, SandboxUser>();
  const users: SandboxDescription['users'] = [];
  for (const u of config.users) {
    const userId = engine.addUser(u.userId);
    const accounts: SandboxAccountDescription[] = [];
    for (const a of u.accounts) {
      const account = engine.openAccount({
        userId,
        accountId: a.accountId,
        type: a.type,
        ...(a.phase !== undefined ? { phase: a.phase } : {}),
        initialBalance: a.initialBalance,
        apiTrading: a.apiTrading,
        ...(a.category !== undefined ? { category: a.category } : {}),
        ...(a.rules !== undefined ? { rules: a.rules as never } : {}),
      });
      if (a.status !== undefined) engine.setAccountStatus(account.accountId, a.status as AccountStatus);
      accounts.push({ accountId: account.accountId, name: a.name, apiTrading: account.apiTrading, type: account.type, phase: account.currentPhase });
    }
    const exchange = engine.exchangeFor(userId, {
      viaApiKey: true,
      // Runs after the idempotency key is marked in flight: a configured delay makes 409 reachable.
      beforeAct: async () => {
        if (state.beforeActMs > 0) {
          await sleep(state.beforeActMs);
          sync();
        }
      },
    });
    usersByKey.set(u.apiKey, { name: u.name, userId, apiKey: u.apiKey, exchange });
    users.push({ name: u.name, userId, apiKey: u.apiKey, accounts });
  }

  // ── the order ledger (every order ever created, for tests that check nothing was placed twice) ──
  const ledger = new Map<string, OrderLedgerEntry>();
  const record = (order: Order, via: 'api' | 'engine', extra: Partial<OrderLedgerEntry> = {}) => {
    const prior = ledger.get(order.id);
    ledger.set(order.id, {
      order,
      via: prior?.via === 'api' ? 'api' : via,
      user: extra.user ?? prior?.user ?? null,
      idempotencyKey: extra.idempotencyKey ?? prior?.idempotencyKey ?? null,
      requestSeq: extra.requestSeq ?? prior?.requestSeq ?? null,
    });
  };
  const unsubscribe = engine.onEvent((event) => {
    if (event.kind === 'order') record(event.order, 'engine');
  });

  const limiter = new RateLimiter(config.rateLimits);
  const faults = new FaultInjector(config.faults as FaultOptions);
  const router = new Router();
  let requestSeq = 0;

  const description: SandboxDescription = {
    baseUrl: '',
    adminToken: config.adminToken,
    clock: { mode: clock.mode, speed: clock.speed, startMs },
    users,
    markets,
  };

  const admin: AdminContext = {
    config,
    engine,
    clock,
    feed,
    faults,
    limiter,
    ledger,
    state,
    describe: () => description,
    sync,
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const { found, allowed } = router.match(method, url.pathname);
    if (!found) {
      req.resume();
      if (allowed.length > 0) {
        throw new HttpRefusal(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}; allowed: ${allowed.join(', ')}`, {}, { allow: allowed.join(', ') });
      }
      throw new HttpRefusal(404, 'route_not_found', `no API operation at ${method} ${url.pathname}`);
    }
    const { route, params } = found;
    const bucket = OPERATION_BUCKET[route.operation];
    requestSeq += 1;
    const seq = requestSeq;

    const fault = faults.decide(method, route.path, bucket);
    if (fault.delayMs > 0) await sleep(fault.delayMs);
    const faultHeader = { 'x-sandbox-fault': fault.action.kind };
    switch (fault.action.kind) {
      case 'storm': {
        req.resume();
        const retryAtMs = Date.now() + fault.action.retryAfterMs;
        throw new HttpRefusal(
          429,
          'api_key_rate_limit_exceeded',
          `API key rate limit exceeded (sandbox fault injection: 429 storm)`,
          { bucket, window: 'storm', limit: 0, retryAt: new Date(retryAtMs).toISOString() },
          { 'retry-after': String(Math.max(1, Math.ceil(fault.action.retryAfterMs / 1000))), ...faultHeader },
        );
      }
      case 'server_error':
        req.resume();
        throw new HttpRefusal(fault.action.status, 'injected_fault', `sandbox fault injection: HTTP ${fault.action.status}`, {}, faultHeader);
      case 'drop_before':
        req.socket.destroy();
        return;
      default:
        break;
    }

    const user = authenticate(req);
    if (!user) {
      req.resume();
      throw new HttpRefusal(401, null, 'missing or invalid API key (expected the header Authorization: Bearer <API key>)');
    }
    const refusal = limiter.take(user.apiKey, bucket, Date.now());
    if (refusal) {
      req.resume();
      const retryAfter = Math.max(1, Math.ceil((refusal.retryAtMs - Date.now()) / 1000));
      throw new HttpRefusal(
        429,
        'api_key_rate_limit_exceeded',
        `API key rate limit exceeded: ${refusal.bucket} bucket, at most ${refusal.limit} requests per ${refusal.window}`,
        { bucket: refusal.bucket, window: refusal.window, limit: refusal.limit, retryAt: new Date(refusal.retryAtMs).toISOString() },
        { 'retry-after': String(retryAfter) },
      );
    }

    const raw = await readBody(req, config.server.maxBodyBytes);
    let body: unknown;
    if (route.body === 'required') {
      body = parseJson(raw);
      if (body === undefined) throw new HttpRefusal(400, 'invalid_request_body', `${method} ${route.path} needs a JSON body`, { field: '(root)' });
    }
    const keyHeader = req.headers['x-idempotency-key'];
    const idempotencyKey = typeof keyHeader === 'string' && keyHeader !== '' ? keyHeader : null;

    sync();
    let answer: RouteAnswer;
    try {
      answer = await route.handle(user.exchange, { params, query: url.searchParams, body, idempotencyKey });
    } catch (err) {
      if (fault.action.kind === 'drop_after') req.socket.destroy();
      throw err;
    }
    for (const order of (answer.created ?? []) as Order[]) record(order, 'api', { user: user.name, idempotencyKey, requestSeq: seq });
    if (fault.action.kind === 'drop_after') {
      // The engine acted; the client never learns the outcome.
      req.socket.destroy();
      return;
    }
    if (answer.body === undefined) sendEmpty(res, answer.status, answer.headers);
    else sendJson(res, answer.status, answer.body, answer.headers);
  }

  function authenticate(req: IncomingMessage): SandboxUser | undefined {
    const key = bearerToken(req);
    return key === undefined ? undefined : usersByKey.get(key);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    } catch {
      req.resume();
      sendError(res, 400, 'invalid_url', `cannot parse the request target ${JSON.stringify(req.url)}`);
      return;
    }
    try {
      if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) {
        // The token first: a caller without it gets 401 before the server reads a byte of its body.
        checkAdminToken(admin, req);
        const raw = await readBody(req, config.server.maxBodyBytes);
        const out = await handleAdmin(admin, req, url, raw);
        if (out.body === undefined) sendEmpty(res, out.status);
        else sendJson(res, out.status, out.body);
        return;
      }
      await handleApi(req, res, url);
    } catch (err) {
      if (res.headersSent || res.destroyed || req.socket.destroyed) return;
      respondError(res, err);
    }
  }

  function respondError(res: ServerResponse, err: unknown): void {
    if (err instanceof HttpRefusal) {
      sendError(res, err.status, err.code, err.message, err.details, err.headers);
      return;
    }
    if (err instanceof ApiError) {
      // The shared encoder strips the request line the error carries, so the client does not repeat it.
      const wire = encodeApiError(err);
      const codeless = err instanceof OrderNotActiveError || err.status === 401 || err.status === 404;
      if (codeless) wire.body['error'] = null;
      sendJson(res, wire.status, wire.body, wire.headers);
      return;
    }
    // Anything else is a bug in the sandbox or the engine: say so, keep serving.
    log(`internal error: ${errorText(err)}`);
    const code = err instanceof PropbotError ? err.code : 'internal_error';
    sendError(res, 500, 'internal_error', `sandbox internal error (${code}): ${err instanceof Error ? err.message : String(err)}`);
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      // Last line of defence: one broken request never takes the server down.
      log(`request failed: ${errorText(err)}`);
      if (!res.headersSent && !res.destroyed) res.destroy();
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  const port = options.port ?? config.server.port;
  // Refused at the port a user picks, by flag or by the file (often a sandbox already running there).
  await listenOn(server, port, host, options.port !== undefined ? '--port' : 'server.port', {
    busy: 'another sandbox may be running there',
    ...(options.port === undefined && options.configFile !== undefined ? { file: options.configFile } : {}),
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  description.baseUrl = `http://${shownHost}:${address.port}`;

  sync();
  const timer = config.clock.mode === 'manual' ? undefined : setInterval(() => {
    try {
      sync();
    } catch (err) {
      log(`clock tick failed: ${errorText(err)}`);
    }
  }, config.clock.tickMs);
  timer?.unref();

  if (options.describeOut) writeFileSync(options.describeOut, JSON.stringify(description, null, 2) + '\n');
  if (!isLoopbackHost(host)) log(`serving beyond this machine on ${host}: the admin surface needs the configured adminToken, and describe withholds API keys from other hosts`);

  let closed: Promise<void> | undefined;
  return {
    baseUrl: description.baseUrl,
    describe: description,
    engine,
    now: () => clock.now(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        if (timer) clearInterval(timer);
        unsubscribe();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

function makeTrack(price: SandboxConfig['markets'][number]['price'], startMs: number, key: string): PriceTrack {
  if (price.kind === 'randomWalk') {
    return new RandomWalkTrack(
      { initial: price.initial, stepMs: price.stepMs, volatility: price.volatility, decimals: price.decimals, seed: price.seed },
      startMs,
    );
  }
  const candles = readCandleFile(price.file, `${key}.replay.file`);
  return new CandleReplayTrack({ candles, candleMs: price.candleMs ?? inferCandleMs(candles), loop: price.loop }, startMs);
}

const DAY = 86_400_000;
function toWeeklyBreak(p: { startMs: number; endMs: number }): WeeklyBreak {
  const hhmm = (ms: number) => {
    const inDay = ms % DAY;
    return `${String(Math.floor(inDay / 3_600_000)).padStart(2, '0')}:${String(Math.floor((inDay % 3_600_000) / 60_000)).padStart(2, '0')}`;
  };
  return { startDay: Math.floor(p.startMs / DAY), startTime: hhmm(p.startMs), endDay: Math.floor(p.endMs / DAY), endTime: hhmm(p.endMs) };
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
