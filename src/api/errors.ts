/**
 * Errors of the platform's API as one hierarchy, shared by the HTTP client, the local engine and the
 * sandbox server. Two branches, as ccxt splits them:
 *   - `VenueRefusal`: the venue looked at the request and said no (400, 401, 403, 404). Never retried.
 *   - `TransientFailure`: the request may succeed if sent again (5xx, timeouts, resets, 429, 409 in flight).
 *     Only the executor retries, and only these.
 * `ERROR_TABLE` maps status and code to a class, declaratively; nothing ever matches message text.
 */
import { PropbotError } from '../core/errors.js';

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  /** Operation and request line (method and path, never the key) for the log. */
  request?: string;
  details?: Record<string, unknown>;
}

export abstract class ApiError extends PropbotError {
  readonly status: number;
  readonly request: string | undefined;
  readonly details: Record<string, unknown>;
  abstract readonly retryable: boolean;
  constructor(init: ApiErrorInit, options?: { cause?: unknown }) {
    super(init.code, init.request ? `${init.request}: ${init.message}` : init.message, options);
    this.status = init.status;
    this.request = init.request;
    this.details = init.details ?? {};
  }
}

// ── the venue said no ────────────────────────────────────────────────────────────────────────────
export class VenueRefusal extends ApiError {
  readonly retryable = false;
}
/** 400: shape, leverage, trigger, position, notional or market-price validation. `code` is the spec's. */
export class ValidationError extends VenueRefusal {}
/** 400 `invalid_leverage`, with the bound that was crossed. */
export class InvalidLeverageError extends ValidationError {
  get leverage(): string | undefined {
    return this.details['leverage'] as string | undefined;
  }
  get minLeverage(): string | undefined {
    return this.details['minLeverage'] as string | undefined;
  }
  get maxLeverage(): string | undefined {
    return this.details['maxLeverage'] as string | undefined;
  }
}
/** 401: missing or invalid credentials. */
export class UnauthorizedError extends VenueRefusal {}
/** 403 with or without a code (`code` is `forbidden` when the venue gave none: an order no longer active). */
export class ForbiddenError extends VenueRefusal {}
export class AccountAccessDeniedError extends ForbiddenError {}
export class ApiTradingNotEnabledError extends ForbiddenError {}
export class ChallengeClosedError extends ForbiddenError {}
export class FundedLimitTradingLockedError extends ForbiddenError {}
export class MarketPausedError extends ForbiddenError {}
export class MarketCloseOnlyError extends ForbiddenError {}
/** 403 without a code: cancelling or editing an order that is no longer active. */
export class OrderNotActiveError extends ForbiddenError {}
/** 404: no account, order, position or market (or ticker). */
export class NotFoundError extends VenueRefusal {}
/** Any other 4xx the table does not know. */
export class UnexpectedClientError extends VenueRefusal {}

// ── try again ────────────────────────────────────────────────────────────────────────────────────
export class TransientFailure extends ApiError {
  readonly retryable = true;
}
/** 409 `idempotency_key_in_flight`: the first call with this key still runs; retry with the same key. */
export class IdempotencyInFlightError extends TransientFailure {}
/** 429 `api_key_rate_limit_exceeded`. */
export class RateLimitError extends TransientFailure {
  /** `read` or `write`. */
  get bucket(): string | undefined {
    return this.details['bucket'] as string | undefined;
  }
  get window(): string | undefined {
    return this.details['window'] as string | undefined;
  }
  get limit(): number | undefined {
    return this.details['limit'] as number | undefined;
  }
  /** When to come back, from `Retry-After` (seconds or HTTP date) or the body's `retryAt`. */
  get retryAt(): Date | undefined {
    return this.details['retryAt'] as Date | undefined;
  }
}
/** 5xx. */
export class ServerError extends TransientFailure {}
/** No answer in time. The request may or may not have been acted on. */
export class RequestTimeoutError extends TransientFailure {}
/** Connection refused, reset or dropped. The request may or may not have been acted on. */
export class ConnectionError extends TransientFailure {}

type ErrorClass = new (init: ApiErrorInit, options?: { cause?: unknown }) => ApiError;

export interface ErrorTableRow {
  status: number;
  /** The body's `error` code; `*` matches any code (and none). */
  code: string;
  errorClass: ErrorClass;
}

/** Order matters: the first row whose status and code match wins. */
export const ERROR_TABLE: readonly ErrorTableRow[] = [
  { status: 400, code: 'invalid_leverage', errorClass: InvalidLeverageError },
  { status: 400, code: '*', errorClass: ValidationError },
  { status: 401, code: '*', errorClass: UnauthorizedError },
  { status: 403, code: 'account_access_denied', errorClass: AccountAccessDeniedError },
  { status: 403, code: 'api_trading_not_enabled', errorClass: ApiTradingNotEnabledError },
  { status: 403, code: 'challenge_closed', errorClass: ChallengeClosedError },
  { status: 403, code: 'funded_limit_trading_locked', errorClass: FundedLimitTradingLockedError },
  { status: 403, code: 'market_paused', errorClass: MarketPausedError },
  { status: 403, code: 'market_close_only', errorClass: MarketCloseOnlyError },
  { status: 403, code: 'order_not_active', errorClass: OrderNotActiveError },
  { status: 403, code: '*', errorClass: ForbiddenError },
  { status: 404, code: '*', errorClass: NotFoundError },
  { status: 409, code: 'idempotency_key_in_flight', errorClass: IdempotencyInFlightError },
  { status: 429, code: '*', errorClass: RateLimitError },
];

/** The class for a status and code: the table first, then 5xx → ServerError, other 4xx → UnexpectedClientError. */
export function errorClassFor(status: number, code: string | undefined): ErrorClass {
  for (const row of ERROR_TABLE) {
    if (row.status === status && (row.code === '*' || row.code === code)) return row.errorClass;
  }
  if (status >= 500) return ServerError;
  return UnexpectedClientError;
}

/** Build the typed error for a status, code and message. */
export function apiError(init: ApiErrorInit, options?: { cause?: unknown }): ApiError {
  const Cls = errorClassFor(init.status, init.code);
  return new Cls(init, options);
}

/** Default code per status when the venue sent none (401, 404, 403 on an inactive order, 5xx). */
export function defaultCodeFor(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 429:
      return 'api_key_rate_limit_exceeded';
    default:
      return status >= 500 ? 'server_error' : `http_${status}`;
  }
}
