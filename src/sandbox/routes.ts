/**
 * Every operation of the API spec on its exact method and path, each bound to one method of the
 * `Exchange` port. A route parses its path, query and body (400 `invalid_query` / `invalid_request_body`
 * naming the field), calls the port and encodes the answer with the wire encoders of src/api/wire.ts.
 * Errors the port throws (the `ApiError` classes) are mapped to status and code by the server.
 */
import type { Exchange, ExchangeOperation, Idempotent } from '../api/exchange.js';
import type { ChartBucketsQuery, ChartEventsQuery, EquityHistoryQuery, MarketQuery, PageQuery } from '../api/types.js';
import { CHART_RESOLUTIONS } from '../api/types.js';
import {
  decodeCreateOrderRequest,
  decodeEditOrderRequest,
  encodeAccountEvent,
  encodeChartEvent,
  encodeChartEventBucket,
  encodeEquityPoint,
  encodeList,
  encodeMarket,
  encodeOrder,
  encodePage,
  encodePosition,
  encodePositionEvent,
  encodeRiskStatus,
  encodeScalpingCoefficient,
} from '../api/wire.js';
import { HttpRefusal } from './http-io.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when none was sent. */
  body: unknown;
  /** `x-idempotency-key`, or null when absent (the caller opted out). */
  idempotencyKey: string | null;
}

export interface RouteAnswer {
  status: number;
  /** Undefined for an empty body (204). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Orders this request created (for the admin ledger). */
  created?: unknown[];
}

export interface Route {
  method: HttpMethod;
  /** The spec's path, `{name}` for a parameter. */
  path: string;
  operation: ExchangeOperation;
  /** Whether the route reads a JSON body. */
  body: 'required' | 'none';
  handle(exchange: Exchange, request: RouteRequest): Promise<RouteAnswer>;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

function invalidQuery(name: string, message: string, value: string | null): HttpRefusal {
  const shown = value === null ? 'nothing' : JSON.stringify(value);
  return new HttpRefusal(400, 'invalid_query', `query parameter ${name}: ${message}, got ${shown}`, { field: name });
}

function one(query: URLSearchParams, name: string): string | null {
  const all = query.getAll(name);
  if (all.length > 1) throw invalidQuery(name, 'given more than once', all.join(','));
  return all[0] ?? null;
}

/** The text of a query parameter; undefined when absent or empty and not required. */
function present(query: URLSearchParams, name: string, required: boolean): string | undefined {
  const raw = one(query, name);
  if (raw !== null && raw !== '') return raw;
  if (required) throw invalidQuery(name, 'required', raw);
  return undefined;
}

/** An integer query parameter within [min, max]; undefined when absent and not required. */
function intParam(query: URLSearchParams, name: string, range: { min: number; max: number }, required: true): number;
function intParam(query: URLSearchParams, name: string, range: { min: number; max: number }, required?: false): number | undefined;
function intParam(query: URLSearchParams, name: string, range: { min: number; max: number }, required = false): number | undefined {
  const raw = present(query, name, required);
  if (raw === undefined) return undefined;
  if (!INTEGER.test(raw)) throw invalidQuery(name, 'expected an integer', raw);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) throw invalidQuery(name, `expected an integer in ${range.min}..${range.max}`, raw);
  return n;
}

/** A number query parameter (unix time or a duration). */
function numParam(query: URLSearchParams, name: string, required: true): number;
function numParam(query: URLSearchParams, name: string, required?: false): number | undefined;
function numParam(query: URLSearchParams, name: string, required = false): number | undefined {
  const raw = present(query, name, required);
  if (raw === undefined) return undefined;
  if (!NUMBER.test(raw)) throw invalidQuery(name, 'expected a number', raw);
  const n = Number(raw);
  if (!Number.isFinite(n) || Math.abs(n) > MAX_SAFE) throw invalidQuery(name, 'expected a finite number', raw);
  return n;
}

function pageQuery(query: URLSearchParams, maxLimit: number): PageQuery {
  const out: PageQuery = {};
  const limit = intParam(query, 'limit', { min: 1, max: maxLimit });
  const offset = intParam(query, 'offset', { min: 0, max: MAX_SAFE });
  if (limit !== undefined) out.limit = limit;
  if (offset !== undefined) out.offset = offset;
  return out;
}

/** Headers of a write that went through the idempotency store: a replay is marked as the spec says. */
function replayed<T>({ idempotency: info }: Idempotent<T>): Record<string, string> {
  if (!info.replayed) return {};
  const headers: Record<string, string> = { 'x-idempotency-cached': 'true' };
  if (info.storedAt) headers['x-idempotency-timestamp'] = info.storedAt.toISOString();
  return headers;
}

const p = (r: RouteRequest, name: string): string => r.params[name]!;

export const ROUTES: readonly Route[] = [
  // ── Trading: positions and chart markers ──
  {
    method: 'GET',
    path: '/positions/{accountId}/{asset}/scalping-coefficient',
    operation: 'getScalpingCoefficient',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodeScalpingCoefficient(await x.getScalpingCoefficient(p(r, 'accountId'), p(r, 'asset'))) };
    },
  },
  {
    method: 'GET',
    path: '/positions/{accountId}/{asset}/chart-events',
    operation: 'listChartEvents',
    body: 'none',
    async handle(x, r) {
      const query: ChartEventsQuery = {
        executedFrom: numParam(r.query, 'executedFrom', true),
        executedTo: numParam(r.query, 'executedTo', true),
        ...pageQuery(r.query, 1000),
      };
      return { status: 200, body: encodePage(await x.listChartEvents(p(r, 'accountId'), p(r, 'asset'), query), encodeChartEvent) };
    },
  },
  {
    method: 'GET',
    path: '/positions/{accountId}/{asset}/chart-events/buckets',
    operation: 'getChartEventBuckets',
    body: 'none',
    async handle(x, r) {
      const resolution = one(r.query, 'resolution');
      if (resolution === null || !(CHART_RESOLUTIONS as readonly string[]).includes(resolution)) {
        throw invalidQuery('resolution', `expected one of ${CHART_RESOLUTIONS.join(', ')}`, resolution);
      }
      const query: ChartBucketsQuery = {
        resolution: resolution as ChartBucketsQuery['resolution'],
        from: intParam(r.query, 'from', { min: 0, max: MAX_SAFE }, true),
        to: intParam(r.query, 'to', { min: 0, max: MAX_SAFE }, true),
      };
      const buckets = await x.getChartEventBuckets(p(r, 'accountId'), p(r, 'asset'), query);
      return { status: 200, body: encodeList(buckets, encodeChartEventBucket, 'buckets') };
    },
  },
  {
    method: 'GET',
    path: '/positions/{accountId}/{asset}/active',
    operation: 'listActivePositions',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodeList(await x.listActivePositions(p(r, 'accountId'), p(r, 'asset')), encodePosition, 'positions') };
    },
  },
  {
    method: 'POST',
    path: '/positions/{accountId}/close-all',
    operation: 'closeAllPositions',
    body: 'none',
    async handle(x, r) {
      const result = await x.closeAllPositions(p(r, 'accountId'), { idempotencyKey: r.idempotencyKey });
      return { status: 204, headers: replayed(result) };
    },
  },
  {
    method: 'GET',
    path: '/positions/{positionId}/history',
    operation: 'getPositionHistory',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodeList(await x.getPositionHistory(p(r, 'positionId')), encodePositionEvent, 'events') };
    },
  },
  // ── Trading: orders ──
  {
    method: 'GET',
    path: '/orders/{accountId}/active',
    operation: 'listActiveOrders',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodeList(await x.listActiveOrders(p(r, 'accountId')), encodeOrder, 'orders') };
    },
  },
  {
    method: 'GET',
    path: '/orders/{accountId}/{asset}/history',
    operation: 'listOrderHistory',
    body: 'none',
    async handle(x, r) {
      const page = await x.listOrderHistory(p(r, 'accountId'), p(r, 'asset'), pageQuery(r.query, 100));
      return { status: 200, body: encodePage(page, encodeOrder) };
    },
  },
  {
    method: 'POST',
    path: '/orders',
    operation: 'createOrder',
    body: 'required',
    async handle(x, r) {
      const request = decodeCreateOrderRequest(r.body);
      const result = await x.createOrder(request, { idempotencyKey: r.idempotencyKey });
      // The spec does not show the success status of creation; 201 Created (a replay answers the same).
      return {
        status: 201,
        body: encodeOrder(result.value),
        headers: replayed(result),
        created: result.idempotency.replayed ? [] : [result.value],
      };
    },
  },
  {
    method: 'PATCH',
    path: '/orders/{orderId}',
    operation: 'editOrder',
    body: 'required',
    async handle(x, r) {
      const order = await x.editOrder(p(r, 'orderId'), decodeEditOrderRequest(r.body));
      return { status: 200, body: encodeOrder(order), created: [order] };
    },
  },
  {
    method: 'DELETE',
    path: '/orders/{orderId}',
    operation: 'cancelOrder',
    body: 'none',
    async handle(x, r) {
      await x.cancelOrder(p(r, 'orderId'));
      return { status: 204 };
    },
  },
  // ── Accounts ──
  {
    method: 'GET',
    path: '/accounts/risk-status',
    operation: 'listRiskStatuses',
    body: 'none',
    async handle(x) {
      return { status: 200, body: encodeList(await x.listRiskStatuses(), encodeRiskStatus, 'riskStatuses') };
    },
  },
  {
    method: 'GET',
    path: '/accounts/{accountId}/risk-status',
    operation: 'getRiskStatus',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodeRiskStatus(await x.getRiskStatus(p(r, 'accountId'))) };
    },
  },
  {
    method: 'GET',
    path: '/accounts/{accountId}/equity-history',
    operation: 'getEquityHistory',
    body: 'none',
    async handle(x, r) {
      const query: EquityHistoryQuery = {};
      const timestamp = numParam(r.query, 'timestamp');
      const duration = numParam(r.query, 'duration');
      if (timestamp !== undefined) query.timestamp = timestamp;
      if (duration !== undefined) query.duration = duration;
      const points = await x.getEquityHistory(p(r, 'accountId'), query);
      return { status: 200, body: encodeList(points, encodeEquityPoint, 'equityHistory') };
    },
  },
  {
    method: 'POST',
    path: '/accounts/{accountId}/close-all',
    operation: 'closeAllAccount',
    body: 'none',
    async handle(x, r) {
      const result = await x.closeAllAccount(p(r, 'accountId'), { idempotencyKey: r.idempotencyKey });
      return { status: 204, headers: replayed(result) };
    },
  },
  {
    method: 'GET',
    path: '/accounts/events',
    operation: 'listAccountEvents',
    body: 'none',
    async handle(x, r) {
      return { status: 200, body: encodePage(await x.listAccountEvents(pageQuery(r.query, 100)), encodeAccountEvent) };
    },
  },
  // ── Config ──
  {
    method: 'GET',
    path: '/v2/markets/{id}',
    operation: 'getMarket',
    body: 'none',
    async handle(x, r) {
      const query: MarketQuery = {};
      const accountId = one(r.query, 'accountId');
      if (accountId !== null && accountId !== '') query.accountId = accountId;
      return { status: 200, body: encodeMarket(await x.getMarket(p(r, 'id'), query)) };
    },
  },
  {
    method: 'GET',
    path: '/v2/markets',
    operation: 'listMarkets',
    body: 'none',
    async handle(x) {
      // The list's shape is not shown by the spec; the sandbox answers a bare array of Market.
      return { status: 200, body: encodeList(await x.listMarkets(), encodeMarket, 'markets') };
    },
  },
];

interface CompiledRoute {
  route: Route;
  segments: Array<{ literal: string } | { param: string }>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Matches a method and path against the table; literal segments win over parameters. */
export class Router {
  readonly #compiled: CompiledRoute[];

  constructor(routes: readonly Route[] = ROUTES) {
    this.#compiled = routes.map((route) => ({
      route,
      segments: route.path
        .split('/')
        .slice(1)
        .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s })),
    }));
  }

  /** The route for a method and path; `allowed` lists methods of routes that match the path only. */
  match(method: string, pathname: string): { found: RouteMatch | null; allowed: string[] } {
    const parts = pathname.split('/').slice(1);
    let decoded: string[];
    try {
      decoded = parts.map((s) => decodeURIComponent(s));
    } catch {
      return { found: null, allowed: [] };
    }
    let best: { match: RouteMatch; literals: number } | null = null;
    const allowed: string[] = [];
    for (const c of this.#compiled) {
      if (c.segments.length !== decoded.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < c.segments.length && ok; i += 1) {
        const seg = c.segments[i]!;
        const value = decoded[i]!;
        if ('literal' in seg) {
          ok = seg.literal === value;
          literals += 1;
        } else {
          ok = value.length > 0;
          params[seg.param] = value;
        }
      }
      if (!ok) continue;
      if (c.route.method !== method) {
        allowed.push(c.route.method);
        continue;
      }
      if (!best || literals > best.literals) best = { match: { route: c.route, params }, literals };
    }
    return { found: best?.match ?? null, allowed };
  }
}
