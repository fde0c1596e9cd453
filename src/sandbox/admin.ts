/**
 * The sandbox's admin surface, under `/_sandbox/` (off the API's paths), for tests and operators.
 * Every call needs `Authorization: Bearer <adminToken>` (the config's `adminToken`), checked before the
 * body is read; API keys do not work here and admin calls are neither rate-limited nor hit by injected
 * faults.
 *
 *   GET  /_sandbox/describe            the description JSON (base URL, users, keys, accounts, markets);
 *                                      keys and token withheld from a peer off this machine
 *   GET  /_sandbox/time                sandbox time { now, iso, mode, speed }
 *   POST /_sandbox/advance             { "ms": 60000 } move the clock ahead (price points on the way apply)
 *   POST /_sandbox/price               { "asset": "BTC" | "marketId": "…", "price": "61000.5" } (decimal string)
 *   POST /_sandbox/market-flags        { "asset": "BTC", "isPaused": true, "isCloseOnly": false, … }
 *   POST /_sandbox/account-status      { "accountId": "…", "status": "trading_locked_by_funded_limit" }
 *   GET  /_sandbox/orders              every order ever created, latest state, with how it came to be
 *   GET  /_sandbox/faults              fault settings, API requests seen, and the faults injected so far
 *   PUT  /_sandbox/faults              replace the fault settings (YAML `faults` shape as JSON) and restart the sequence
 *   PUT  /_sandbox/latency             { "beforeActMs": 300 } delay of writes between "key in flight" and acting
 *   POST /_sandbox/rate-limits/reset   forget every key's rate-limit history
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { ApiError } from '../api/errors.js';
import { ACCOUNT_STATUSES } from '../api/types.js';
import { encodeOrder } from '../api/wire.js';
import { Dec } from '../core/decimal.js';
import { PropbotError } from '../core/errors.js';
import { isLoopbackHost } from '../core/net.js';
import type { Engine } from '../engine/index.js';
import { faultsSchema, type SandboxConfig } from './config.js';
import type { FaultInjector } from './faults.js';
import { bearerToken, HttpRefusal, parseJson } from './http-io.js';
import type { MarketFeed } from './market-feed.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SandboxClock } from './sandbox-clock.js';
import type { OrderLedgerEntry, SandboxDescription } from './types.js';

export interface AdminContext {
  config: SandboxConfig;
  engine: Engine;
  clock: SandboxClock;
  feed: MarketFeed;
  faults: FaultInjector;
  limiter: RateLimiter;
  ledger: Map<string, OrderLedgerEntry>;
  state: { beforeActMs: number };
  describe(): SandboxDescription;
  sync(): void;
}

export interface AdminAnswer {
  status: number;
  body?: unknown;
}

const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

const marketRef = { asset: z.string().min(1).optional(), marketId: z.string().min(1).optional() };
const advanceBody = z.strictObject({ ms: z.number().int().nonnegative().max(366 * 86_400_000) });
const priceBody = z.strictObject({ ...marketRef, price: z.string().regex(DECIMAL, 'a decimal string such as "61000.5"') });
const flagsBody = z.strictObject({
  ...marketRef,
  isPaused: z.boolean().optional(),
  isCloseOnly: z.boolean().optional(),
  isClosed: z.boolean().optional(),
  isZeroSpread: z.boolean().optional(),
});
const statusBody = z.strictObject({ accountId: z.string().min(1), status: z.enum(ACCOUNT_STATUSES) });
const latencyBody = z.strictObject({ beforeActMs: z.number().int().nonnegative().max(600_000) });

function parse<S extends z.ZodType>(schema: S, raw: Buffer): z.output<S> {
  const json = parseJson(raw) ?? {};
  const r = schema.safeParse(json);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  const message = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message;
  throw new HttpRefusal(400, 'invalid_request_body', `${field}: ${message}`, { field });
}

function marketIdOf(ctx: AdminContext, ref: { asset?: string | undefined; marketId?: string | undefined }): string {
  if (ref.marketId) {
    if (!ctx.describe().markets.some((m) => m.id === ref.marketId)) throw new HttpRefusal(404, 'market_not_found', `no market with id ${ref.marketId}`);
    return ref.marketId;
  }
  if (ref.asset) {
    const m = ctx.describe().markets.find((x) => x.baseAsset.toUpperCase() === ref.asset!.toUpperCase());
    if (!m) throw new HttpRefusal(404, 'market_not_found', `no market for the ticker ${ref.asset}`);
    return m.id;
  }
  throw new HttpRefusal(400, 'invalid_request_body', 'give asset or marketId', { field: 'asset' });
}

/** 401 unless the request carries the admin token; call it before reading the body. */
export function checkAdminToken(ctx: AdminContext, req: IncomingMessage): void {
  if (bearerToken(req) !== ctx.config.adminToken) {
    req.resume();
    throw new HttpRefusal(401, 'admin_unauthorized', 'the /_sandbox/ admin surface needs Authorization: Bearer <adminToken>');
  }
}

/**
 * The description as served to `req`'s peer: a peer off this machine gets no API key and no admin
 * token, even with the token, so a sandbox reachable from the network never hands its keys out.
 */
function describeFor(ctx: AdminContext, req: IncomingMessage): unknown {
  const d = ctx.describe();
  if (isLoopbackHost(req.socket.remoteAddress ?? '')) return d;
  return {
    ...d,
    adminToken: null,
    users: d.users.map((u) => ({ ...u, apiKey: null })),
    withheld: 'API keys and the admin token are only described to a client on the sandbox\'s own machine',
  };
}

export async function handleAdmin(ctx: AdminContext, req: IncomingMessage, url: URL, raw: Buffer): Promise<AdminAnswer> {
  checkAdminToken(ctx, req);
  const method = (req.method ?? 'GET').toUpperCase();
  const route = `${method} ${url.pathname.replace(/\/+$/, '')}`;
  try {
    switch (route) {
      case 'GET /_sandbox/describe':
        return { status: 200, body: describeFor(ctx, req) };
      case 'GET /_sandbox/time': {
        ctx.sync();
        const now = ctx.clock.now();
        return { status: 200, body: { now, iso: new Date(now).toISOString(), mode: ctx.clock.mode, speed: ctx.clock.speed } };
      }
      case 'POST /_sandbox/advance': {
        const { ms } = parse(advanceBody, raw);
        ctx.clock.advance(ms);
        ctx.sync();
        const now = ctx.clock.now();
        return { status: 200, body: { now, iso: new Date(now).toISOString() } };
      }
      case 'POST /_sandbox/price': {
        const body = parse(priceBody, raw);
        const marketId = marketIdOf(ctx, body);
        const price = new Dec(body.price);
        if (!price.gt(0)) throw new HttpRefusal(400, 'invalid_request_body', `price: must be above 0, got ${body.price}`, { field: 'price' });
        ctx.feed.setPrice(marketId, price, ctx.clock.now());
        return { status: 200, body: { marketId, price: body.price, now: ctx.engine.now() } };
      }
      case 'POST /_sandbox/market-flags': {
        const body = parse(flagsBody, raw);
        const marketId = marketIdOf(ctx, body);
        const flags: Record<string, boolean> = {};
        for (const k of ['isPaused', 'isCloseOnly', 'isClosed', 'isZeroSpread'] as const) if (body[k] !== undefined) flags[k] = body[k];
        ctx.sync();
        ctx.engine.setMarketFlags(marketId, flags);
        return { status: 200, body: { marketId, flags } };
      }
      case 'POST /_sandbox/account-status': {
        const body = parse(statusBody, raw);
        if (!ctx.engine.getAccount(body.accountId)) throw new HttpRefusal(404, 'account_not_found', `no account with id ${body.accountId}`);
        ctx.sync();
        ctx.engine.setAccountStatus(body.accountId, body.status);
        return { status: 200, body };
      }
      case 'GET /_sandbox/orders': {
        const data = [...ctx.ledger.values()].map((e) => ({ ...e, order: encodeOrder(e.order) }));
        return { status: 200, body: { data, totalCount: data.length } };
      }
      case 'GET /_sandbox/faults':
        return { status: 200, body: { options: ctx.faults.options, requests: ctx.faults.requests, injected: ctx.faults.log() } };
      case 'PUT /_sandbox/faults': {
        const parsed = parse(faultsSchema, raw);
        const options = { ...parsed, seed: parsed.seed ?? ctx.faults.options.seed };
        ctx.faults.configure(options);
        return { status: 200, body: { options } };
      }
      case 'PUT /_sandbox/latency': {
        const body = parse(latencyBody, raw);
        ctx.state.beforeActMs = body.beforeActMs;
        return { status: 200, body };
      }
      case 'POST /_sandbox/rate-limits/reset':
        ctx.limiter.reset();
        return { status: 204 };
      default:
        throw new HttpRefusal(404, 'route_not_found', `no admin operation at ${route}`);
    }
  } catch (err) {
    if (err instanceof HttpRefusal || err instanceof ApiError) throw err;
    // The engine refuses what an operator asked for (a bad flag, a status it does not allow): the caller's mistake.
    if (err instanceof PropbotError) throw new HttpRefusal(400, err.code, err.message);
    if (err instanceof RangeError || err instanceof TypeError) throw new HttpRefusal(400, 'admin_request_refused', err.message);
    throw err;
  }
}
