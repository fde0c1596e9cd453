/**
 * `HttpExchange`: the `Exchange` port over the platform's HTTP API (axios).
 *
 * One method per operation with the spec's method, path, query and body; responses are decoded by
 * `./wire.ts` and failures mapped through `ERROR_TABLE`. The API key is held in a private field and
 * only ever placed in the outgoing `Authorization` header: errors are built from scratch (never the
 * axios error, which carries the request config and so the header), logs carry the request line only.
 */
import type { AxiosError, AxiosInstance, AxiosResponse, AxiosStatic, CreateAxiosDefaults, Method } from 'axios';
import { ConfigError, describeValue } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { isLoopbackHost } from '../core/net.js';
import {
  ConnectionError,
  RequestTimeoutError,
  ValidationError,
  apiError,
  defaultCodeFor,
  type ApiError,
} from './errors.js';
import { CREATE_ORDER_FIELDS, EDIT_ORDER_FIELDS, fieldsRefusal, misplacedCreateFields, unknownFields } from './order-fields.js';
import { paginate, type Exchange, type ExchangeOperation, type Idempotent, type WriteOptions } from './exchange.js';
import {
  CHART_RESOLUTIONS,
  CHART_RESOLUTION_SECONDS,
  MAX_CHART_BUCKET_CANDLES,
  type AccountEvent,
  type ChartBucketsQuery,
  type ChartEvent,
  type ChartEventBucket,
  type ChartEventsQuery,
  type CreateOrderRequest,
  type EditOrderRequest,
  type EquityHistoryQuery,
  type EquityPoint,
  type Market,
  type MarketQuery,
  type Order,
  type Page,
  type PageQuery,
  type Position,
  type PositionEvent,
  type RiskStatus,
  type ScalpingCoefficient,
} from './types.js';
import {
  ResponseShapeError,
  decodeAccountEventPage,
  decodeChartEventBuckets,
  decodeChartEventPage,
  decodeEquityPoints,
  decodeMarket,
  decodeMarkets,
  decodeOrder,
  decodeOrderPage,
  decodeOrders,
  decodePositionEvents,
  decodePositions,
  decodeRiskStatus,
  decodeRiskStatuses,
  decodeScalpingCoefficient,
  encodeCreateOrderRequest,
  encodeEditOrderRequest,
} from './wire.js';

/** The subset of a pino logger the client uses; a pino `Logger` fits. */
export interface ClientLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface HttpExchangeOptions {
  /**
   * The service base address (`{base_url}` of the spec), e.g. `https://api.example.com`. Must be
   * https, except for a loopback host (127.0.0.0/8, localhost, ::1) such as a local sandbox.
   */
  baseUrl: string;
  /** Personal API key, sent as `Authorization: Bearer <key>`. Never logged nor put in an error. */
  apiKey: string;
  /** Abort a request with no complete answer after this many ms (default 15000). */
  timeoutMs?: number;
  /** pino-compatible logger; one debug line per request, one warn line per failure. Silent when omitted. */
  logger?: ClientLogger;
  /** `User-Agent` header (default `propbot`). */
  userAgent?: string;
}

/** Largest `offset` the paged endpoints accept. */
const MAX_OFFSET = 9007199254740991;
const DEFAULT_TIMEOUT_MS = 15_000;
/** Error bodies are quoted in messages only up to this many characters (an HTML page is not a message). */
const BODY_SNIPPET = 200;

type Query = Record<string, string | number | undefined>;

interface Call {
  op: ExchangeOperation;
  method: Method;
  /** Path segments: literal strings are joined as given, parameters are checked and URL-encoded. */
  path: readonly (string | { name: string; value: string })[];
  query?: Query;
  body?: unknown;
  idempotencyKey?: string | null;
}

interface Answer {
  status: number;
  json: unknown;
  headers: AxiosResponse['headers'];
  request: string;
}

let loadedAxios: AxiosStatic | undefined;

/**
 * axios, loaded with the first request: a backtest, a paper run or a plugin importing 'propbot' never
 * sends one, and loading axios is ~70 modules plus Node's fetch machinery, which it probes.
 */
async function loadAxios(): Promise<AxiosStatic> {
  loadedAxios ??= (await import('axios')).default;
  return loadedAxios;
}

export class HttpExchange implements Exchange {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #httpOptions: CreateAxiosDefaults;
  #http: AxiosInstance | undefined;
  readonly #logger: ClientLogger | undefined;
  readonly #timeoutMs: number;

  constructor(options: HttpExchangeOptions) {
    this.baseUrl = checkBaseUrl(options.baseUrl);
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new ConfigError('apiKey', 'expected a non-empty API key string');
    }
    if (/[\r\n]/.test(options.apiKey)) throw new ConfigError('apiKey', 'the API key contains a line break');
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError('timeoutMs', `expected a positive integer number of milliseconds, got ${String(timeoutMs)}`);
    }
    this.#apiKey = options.apiKey;
    this.#logger = options.logger;
    this.#timeoutMs = timeoutMs;
    this.#httpOptions = {
      baseURL: this.baseUrl,
      timeout: timeoutMs,
      headers: { Accept: 'application/json', 'User-Agent': options.userAgent ?? 'propbot' },
      // Bodies are parsed here, not by axios, so an HTML or empty error page is handled, not thrown.
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: 0,
      // The key must not follow a redirect or a proxy set in the environment to another host.
      proxy: false,
    };
  }

  // ── Accounts ───────────────────────────────────────────────────────────────────────────────────

  async listRiskStatuses(): Promise<RiskStatus[]> {
    const a = await this.#send({ op: 'listRiskStatuses', method: 'GET', path: ['accounts', 'risk-status'] });
    return decodeRiskStatuses(a.json, 'riskStatuses', a.request);
  }

  async getRiskStatus(accountId: string): Promise<RiskStatus> {
    const a = await this.#send({
      op: 'getRiskStatus',
      method: 'GET',
      path: ['accounts', { name: 'accountId', value: accountId }, 'risk-status'],
    });
    return decodeRiskStatus(a.json, 'riskStatus', a.request);
  }

  async getEquityHistory(accountId: string, query: EquityHistoryQuery = {}): Promise<EquityPoint[]> {
    const request = `GET /accounts/${enc(accountId)}/equity-history`;
    if (query.timestamp !== undefined) checkInteger(request, 'timestamp', query.timestamp, 0, MAX_OFFSET);
    if (query.duration !== undefined) {
      checkInteger(request, 'duration', query.duration, -MAX_OFFSET, MAX_OFFSET);
      if (query.duration === 0) {
        throw invalidQuery(request, 'duration', 'a zero duration is refused by the venue; use a positive (forward) or negative (backward) window');
      }
    }
    const a = await this.#send({
      op: 'getEquityHistory',
      method: 'GET',
      path: ['accounts', { name: 'accountId', value: accountId }, 'equity-history'],
      query: { timestamp: query.timestamp, duration: query.duration },
    });
    return decodeEquityPoints(a.json, 'equityHistory', a.request);
  }

  async closeAllAccount(accountId: string, options: WriteOptions = {}): Promise<Idempotent<void>> {
    const key = idempotencyKeyOf(options);
    const a = await this.#send({
      op: 'closeAllAccount',
      method: 'POST',
      path: ['accounts', { name: 'accountId', value: accountId }, 'close-all'],
      idempotencyKey: key,
    });
    return { value: undefined, idempotency: idempotencyOf(key, a) };
  }

  async listAccountEvents(query: PageQuery = {}): Promise<Page<AccountEvent>> {
    const request = 'GET /accounts/events';
    checkPage(request, query, 100);
    const a = await this.#send({
      op: 'listAccountEvents',
      method: 'GET',
      path: ['accounts', 'events'],
      query: { limit: query.limit, offset: query.offset },
    });
    return decodeAccountEventPage(a.json, 'page', a.request);
  }

  /** Every account event, newest first, fetching pages of `pageSize` (1..100) as needed. */
  iterateAccountEvents(pageSize = 100): AsyncGenerator<AccountEvent, void, undefined> {
    return paginate((page) => this.listAccountEvents(page), pageSize);
  }

  // ── Trading: positions and chart markers ───────────────────────────────────────────────────────

  async getScalpingCoefficient(accountId: string, asset: string): Promise<ScalpingCoefficient> {
    const a = await this.#send({
      op: 'getScalpingCoefficient',
      method: 'GET',
      path: ['positions', { name: 'accountId', value: accountId }, { name: 'asset', value: asset }, 'scalping-coefficient'],
    });
    return decodeScalpingCoefficient(a.json, 'scalpingCoefficient', a.request);
  }

  async listChartEvents(accountId: string, asset: string, query: ChartEventsQuery): Promise<Page<ChartEvent>> {
    const request = `GET /positions/${enc(accountId)}/${enc(asset)}/chart-events`;
    checkInteger(request, 'executedFrom', query.executedFrom, 0, MAX_OFFSET);
    checkInteger(request, 'executedTo', query.executedTo, 0, MAX_OFFSET);
    checkPage(request, query, 1000);
    const a = await this.#send({
      op: 'listChartEvents',
      method: 'GET',
      path: ['positions', { name: 'accountId', value: accountId }, { name: 'asset', value: asset }, 'chart-events'],
      query: { executedFrom: query.executedFrom, executedTo: query.executedTo, limit: query.limit, offset: query.offset },
    });
    return decodeChartEventPage(a.json, 'page', a.request);
  }

  /** Every chart event of the range, newest first, fetching pages of `pageSize` (1..1000) as needed. */
  iterateChartEvents(
    accountId: string,
    asset: string,
    range: Pick<ChartEventsQuery, 'executedFrom' | 'executedTo'>,
    pageSize = 1000,
  ): AsyncGenerator<ChartEvent, void, undefined> {
    return paginate(
      (page) => this.listChartEvents(accountId, asset, { executedFrom: range.executedFrom, executedTo: range.executedTo, ...page }),
      pageSize,
    );
  }

  async getChartEventBuckets(accountId: string, asset: string, query: ChartBucketsQuery): Promise<ChartEventBucket[]> {
    const request = `GET /positions/${enc(accountId)}/${enc(asset)}/chart-events/buckets`;
    if (!(CHART_RESOLUTIONS as readonly string[]).includes(query.resolution)) {
      throw invalidQuery(
        request,
        'resolution',
        `expected one of ${CHART_RESOLUTIONS.map((r) => JSON.stringify(r)).join(', ')}, got ${JSON.stringify(query.resolution)}`,
      );
    }
    checkInteger(request, 'from', query.from, 0, MAX_OFFSET);
    checkInteger(request, 'to', query.to, 0, MAX_OFFSET);
    if (query.to < query.from) throw invalidQuery(request, 'to', `to (${query.to}) is before from (${query.from})`);
    const candleSeconds = CHART_RESOLUTION_SECONDS[query.resolution];
    const candles = (query.to - query.from) / candleSeconds;
    if (candles > MAX_CHART_BUCKET_CANDLES) {
      throw new ValidationError({
        status: 400,
        code: 'chart_range_too_large',
        request,
        message: `from..to spans ${Math.ceil(candles)} candles of resolution ${query.resolution}; at most ${MAX_CHART_BUCKET_CANDLES} are allowed (to - from <= ${MAX_CHART_BUCKET_CANDLES * candleSeconds} s)`,
        details: { field: 'to', candles: Math.ceil(candles), maxCandles: MAX_CHART_BUCKET_CANDLES, clientSide: true },
      });
    }
    const a = await this.#send({
      op: 'getChartEventBuckets',
      method: 'GET',
      path: ['positions', { name: 'accountId', value: accountId }, { name: 'asset', value: asset }, 'chart-events', 'buckets'],
      query: { resolution: query.resolution, from: query.from, to: query.to },
    });
    return decodeChartEventBuckets(a.json, 'buckets', a.request);
  }

  async listActivePositions(accountId: string, asset: string): Promise<Position[]> {
    const a = await this.#send({
      op: 'listActivePositions',
      method: 'GET',
      path: ['positions', { name: 'accountId', value: accountId }, { name: 'asset', value: asset }, 'active'],
    });
    return decodePositions(a.json, 'positions', a.request);
  }

  async closeAllPositions(accountId: string, options: WriteOptions = {}): Promise<Idempotent<void>> {
    const key = idempotencyKeyOf(options);
    const a = await this.#send({
      op: 'closeAllPositions',
      method: 'POST',
      path: ['positions', { name: 'accountId', value: accountId }, 'close-all'],
      idempotencyKey: key,
    });
    return { value: undefined, idempotency: idempotencyOf(key, a) };
  }

  async getPositionHistory(positionId: string): Promise<PositionEvent[]> {
    const a = await this.#send({
      op: 'getPositionHistory',
      method: 'GET',
      path: ['positions', { name: 'positionId', value: positionId }, 'history'],
    });
    return decodePositionEvents(a.json, 'events', a.request);
  }

  // ── Trading: orders ────────────────────────────────────────────────────────────────────────────

  async listActiveOrders(accountId: string): Promise<Order[]> {
    const a = await this.#send({
      op: 'listActiveOrders',
      method: 'GET',
      path: ['orders', { name: 'accountId', value: accountId }, 'active'],
    });
    return decodeOrders(a.json, 'orders', a.request);
  }

  async listOrderHistory(accountId: string, asset: string, query: PageQuery = {}): Promise<Page<Order>> {
    checkPage(`GET /orders/${enc(accountId)}/${enc(asset)}/history`, query, 100);
    const a = await this.#send({
      op: 'listOrderHistory',
      method: 'GET',
      path: ['orders', { name: 'accountId', value: accountId }, { name: 'asset', value: asset }, 'history'],
      query: { limit: query.limit, offset: query.offset },
    });
    return decodeOrderPage(a.json, 'page', a.request);
  }

  /** Every finished order of the account on the market, newest first, in pages of `pageSize` (1..100). */
  iterateOrderHistory(accountId: string, asset: string, pageSize = 100): AsyncGenerator<Order, void, undefined> {
    return paginate((page) => this.listOrderHistory(accountId, asset, page), pageSize);
  }

  async createOrder(request: CreateOrderRequest, options: WriteOptions = {}): Promise<Idempotent<Order>> {
    // The encoder would drop an unknown key and the venue ignore a misplaced one: refuse both unsent.
    const unknown = unknownFields(request, CREATE_ORDER_FIELDS);
    if (unknown.length > 0) throw fieldsRefusal('POST /orders', unknown, 'unknown', true);
    const misplaced = misplacedCreateFields(request);
    if (misplaced.length > 0) throw fieldsRefusal('POST /orders', misplaced, { orderType: request.type }, true);
    const body = encodeCreateOrderRequest(request);
    const key = idempotencyKeyOf(options);
    const a = await this.#send({ op: 'createOrder', method: 'POST', path: ['orders'], body, idempotencyKey: key });
    return { value: decodeOrder(a.json, 'order', a.request), idempotency: idempotencyOf(key, a) };
  }

  async editOrder(orderId: string, request: EditOrderRequest): Promise<Order> {
    const unknown = unknownFields(request, EDIT_ORDER_FIELDS);
    if (unknown.length > 0) throw fieldsRefusal(`PATCH /orders/${enc(orderId)}`, unknown, 'unknown', true);
    const body = encodeEditOrderRequest(request);
    const a = await this.#send({ op: 'editOrder', method: 'PATCH', path: ['orders', { name: 'orderId', value: orderId }], body });
    return decodeOrder(a.json, 'order', a.request);
  }

  async cancelOrder(orderId: string): Promise<void> {
    await this.#send({ op: 'cancelOrder', method: 'DELETE', path: ['orders', { name: 'orderId', value: orderId }] });
  }

  // ── Config ─────────────────────────────────────────────────────────────────────────────────────

  async getMarket(marketId: string, query: MarketQuery = {}): Promise<Market> {
    const a = await this.#send({
      op: 'getMarket',
      method: 'GET',
      path: ['v2', 'markets', { name: 'marketId', value: marketId }],
      query: { accountId: query.accountId },
    });
    return decodeMarket(a.json, 'market', a.request);
  }

  async listMarkets(): Promise<Market[]> {
    const a = await this.#send({ op: 'listMarkets', method: 'GET', path: ['v2', 'markets'] });
    return decodeMarkets(a.json, 'markets', a.request);
  }

  // ── transport ──────────────────────────────────────────────────────────────────────────────────

  async #send(call: Call): Promise<Answer> {
    const path = '/' + call.path.map((s) => (typeof s === 'string' ? s : enc(s.value))).join('/');
    for (const segment of call.path) {
      if (typeof segment === 'string') continue;
      if (typeof segment.value !== 'string' || segment.value === '') {
        throw new ValidationError({
          status: 400,
          code: 'invalid_argument',
          request: `${call.method} ${path}`,
          message: `${segment.name}: expected a non-empty string, got ${describeValue(segment.value)}`,
          details: { field: segment.name, clientSide: true },
        });
      }
    }
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) params.set(name, String(value));
    }
    const search = params.toString();
    const url = search ? `${path}?${search}` : path;
    const request = `${call.method} ${url}`;

    const headers: Record<string, string> = { Authorization: `Bearer ${this.#apiKey}` };
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    if (call.idempotencyKey !== undefined && call.idempotencyKey !== null) {
      headers['x-idempotency-key'] = call.idempotencyKey;
    }

    const axios = loadedAxios ?? (await loadAxios());
    this.#http ??= axios.create(this.#httpOptions);
    let response: AxiosResponse<unknown>;
    try {
      response = await this.#http.request<unknown>({
        method: call.method,
        url,
        headers,
        data: call.body === undefined ? undefined : JSON.stringify(call.body),
      });
    } catch (err) {
      // Anything but an axios error is a bug, not a transport failure, and must not be retried as one.
      if (!axios.isAxiosError(err)) throw err;
      const failure = this.#transportError(err, request);
      this.#logger?.warn({ op: call.op, request, code: failure.code }, 'propbot api request failed');
      throw failure;
    }

    const status = response.status;
    // A body that echoes the key (a misbehaving proxy, a debug page) must not carry it into our errors.
    const text = this.#redact(typeof response.data === 'string' ? response.data : '');
    this.#logger?.debug({ op: call.op, request, status }, 'propbot api response');

    if (status >= 200 && status < 300) {
      let json: unknown = undefined;
      // Operations without a response body ignore whatever came with the success status.
      if (isEmptyOk(call.op)) return { status, json, headers: response.headers, request };
      if (text.trim() !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          throw new ResponseShapeError('(body)', 'expected a JSON body', this.#snippet(text), request);
        }
      } else {
        throw new ResponseShapeError('(body)', 'expected a JSON body', undefined, request);
      }
      return { status, json, headers: response.headers, request };
    }

    const failure = this.#httpError(call, request, status, text, response.headers);
    this.#logger?.warn(
      { op: call.op, request, status, code: failure.code, retryable: failure.retryable },
      'propbot api request refused',
    );
    throw failure;
  }

  #httpError(call: Call, request: string, status: number, text: string, headers: AxiosResponse['headers']): ApiError {
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = text.trim() === '' ? undefined : JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    let code = typeof body?.['error'] === 'string' && body['error'] !== '' ? body['error'] : undefined;
    // A 403 without a code on cancel/edit means the order is no longer active (spec, Errors table).
    if (code === undefined && status === 403 && (call.op === 'cancelOrder' || call.op === 'editOrder')) {
      code = 'order_not_active';
    }
    code ??= defaultCodeFor(status);

    const details: Record<string, unknown> = {};
    if (body) {
      for (const [k, v] of Object.entries(body)) if (k !== 'error' && k !== 'message') details[k] = v;
    }
    if (status === 429) {
      const retryAt = parseTimestamp(details['retryAt']) ?? parseRetryAfter(headerOf(headers, 'retry-after'));
      if (retryAt) details['retryAt'] = retryAt;
      else delete details['retryAt'];
      if (typeof details['limit'] === 'string' && /^\d+$/.test(details['limit'])) details['limit'] = Number(details['limit']);
    }

    let message: string;
    if (typeof body?.['message'] === 'string' && body['message'] !== '') message = this.#snippet(body['message']);
    else if (body) message = `HTTP ${status}${code !== defaultCodeFor(status) ? ` ${code}` : ''}`;
    else if (text.trim() === '') message = `HTTP ${status} with an empty body`;
    else message = `HTTP ${status} with a non-JSON body: ${this.#snippet(text)}`;
    if (code !== defaultCodeFor(status) && !message.includes(code)) message = `${code}: ${message}`;

    return apiError({ status, code, message, request, details: this.#redactDeep(details) as Record<string, unknown> });
  }

  #transportError(err: AxiosError, request: string): ApiError {
    const code = err.code ?? '';
    const raw = this.#redact(err.message ?? '');
    // Keep only what explains the failure; the axios error itself holds the request config (and key).
    const cause = { code: code || undefined, message: raw };
    if (code === 'ETIMEDOUT' || (code === 'ECONNABORTED' && /timeout/i.test(raw))) {
      return new RequestTimeoutError(
        { status: 0, code: 'request_timeout', message: `no answer within ${this.#timeoutMs} ms`, request },
        { cause },
      );
    }
    return new ConnectionError(
      { status: 0, code: 'connection_failed', message: `connection failed (${code || 'no code'}: ${raw})`, request, details: { errno: code || undefined } },
      { cause },
    );
  }

  #redact(text: string): string {
    return text.includes(this.#apiKey) ? text.split(this.#apiKey).join('[redacted]') : text;
  }

  #redactDeep(value: unknown): unknown {
    if (typeof value === 'string') return this.#redact(value);
    if (Array.isArray(value)) return value.map((v) => this.#redactDeep(v));
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.#redactDeep(v);
      return out;
    }
    return value;
  }

  #snippet(text: string): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    return this.#redact(flat.length > BODY_SNIPPET ? `${flat.slice(0, BODY_SNIPPET)}…` : flat);
  }

  /** Never show the key when the client is inspected or serialised. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────────────

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/** Operations whose success is a 204 without body. */
function isEmptyOk(op: ExchangeOperation): boolean {
  return op === 'cancelOrder' || op === 'closeAllAccount' || op === 'closeAllPositions';
}

function checkBaseUrl(baseUrl: unknown): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) throw new ConfigError('baseUrl', problem);
  const url = new URL(baseUrl as string);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * What is wrong with `baseUrl` as the API's base address, or undefined when it will do. `keyGoes` says
 * where the API key belongs instead of the URL (a config names its own key for it).
 */
export function baseUrlProblem(baseUrl: unknown, keyGoes = 'pass apiKey instead'): string | undefined {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') return 'expected the service base address, e.g. https://api.example.com';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'not a valid absolute URL (expected e.g. https://api.example.com)';
  }
  if (url.username || url.password) return `must not carry credentials; ${keyGoes}`;
  if (url.search || url.hash) return 'must not carry a query string or fragment';
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      return `plain http:// is refused for host ${url.hostname} (the API key would travel unencrypted); use https://, or http:// only to a loopback host (127.0.0.0/8, localhost, ::1)`;
    }
  } else if (url.protocol !== 'https:') {
    return `unsupported protocol ${url.protocol} (expected https: or, for loopback, http:)`;
  }
  return undefined;
}

function invalidQuery(request: string, field: string, why: string): ValidationError {
  return new ValidationError({
    status: 400,
    code: 'invalid_query',
    request,
    message: `${field}: ${why}`,
    details: { field, clientSide: true },
  });
}

function checkInteger(request: string, field: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const shown = typeof value === 'number' ? String(value) : `${typeof value} ${JSON.stringify(value)}`;
    throw invalidQuery(request, field, `expected an integer in ${min}..${max}, got ${shown}`);
  }
}

function checkPage(request: string, query: PageQuery, maxLimit: number): void {
  if (query.limit !== undefined) checkInteger(request, 'limit', query.limit, 1, maxLimit);
  if (query.offset !== undefined) checkInteger(request, 'offset', query.offset, 0, MAX_OFFSET);
}

function idempotencyKeyOf(options: WriteOptions): string | null {
  if (options.idempotencyKey === null) return null;
  if (options.idempotencyKey === undefined) return newId();
  if (typeof options.idempotencyKey !== 'string' || options.idempotencyKey === '' || /[\r\n]/.test(options.idempotencyKey)) {
    throw new ConfigError('idempotencyKey', 'expected a non-empty single-line string, or null to opt out');
  }
  return options.idempotencyKey;
}

function headerOf(headers: AxiosResponse['headers'], name: string): string | undefined {
  const value: unknown = (headers as Record<string, unknown>)[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : value === undefined || value === null ? undefined : String(value);
}

function idempotencyOf(key: string | null, answer: Answer) {
  const replayed = headerOf(answer.headers, 'x-idempotency-cached')?.trim().toLowerCase() === 'true';
  const storedAt = replayed ? parseTimestamp(headerOf(answer.headers, 'x-idempotency-timestamp')) : null;
  return { key, replayed, storedAt };
}

/** An ISO date-time, an HTTP date, or a unix time (ms, or seconds when it is too small to be ms). */
function parseTimestamp(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value < 1e11 ? value * 1000 : value);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseTimestamp(Number(text));
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** `Retry-After`: delay in seconds, or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return new Date(nowMs + Number(text) * 1000);
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
