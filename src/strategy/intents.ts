/**
 * Order intents: what a strategy wants, before the risk guard has looked at it and before the executor
 * has turned it into API calls. Every intent has a unique `id` that follows it to the orders it produces
 * (the executor derives idempotency keys from it), to the guard's decision and to the store.
 *
 * Sizes and prices are Decimals. Sizing by risk is resolved to a quote amount when the intent is built
 * (by `ctx.intents` helpers, from the equity and price at that moment), and the intent keeps how it was
 * sized in `sizedBy` for the record.
 */
import type { Decimal } from 'decimal.js';
import type { Direction } from '../api/types.js';

export interface IntentBase {
  /** Unique; the executor derives every idempotency key of this intent from it. */
  readonly id: string;
  /** Name of the strategy that emitted it (`risk-guard` for the guard's own). */
  readonly strategy: string;
  readonly accountId: string;
  /** Base asset ticker of the market. */
  readonly asset: string;
  /** Clock time when emitted, unix ms. */
  readonly createdAt: number;
  /** Free text from the strategy, kept in logs and the store. */
  readonly note?: string;
  /** Set on the risk guard's own intents: what made it act (reports name it as the fills' origin). */
  readonly cause?: 'kill_switch' | 'guard_flatten';
}

export type EntryOrder =
  | { readonly type: 'market' }
  | { readonly type: 'limit'; readonly price: Decimal }
  | { readonly type: 'stop_market'; readonly trigger: Decimal }
  | { readonly type: 'stop_limit'; readonly trigger: Decimal; readonly limit: Decimal };

export type Sizing =
  /** Quote amount to reserve (margin + fee), as the API's quote mode. */
  | { readonly kind: 'quote'; readonly amount: Decimal }
  /** Base-asset size, as the API's base mode; `maxAmount` is the quote reserve sent with it. */
  | { readonly kind: 'base'; readonly size: Decimal; readonly maxAmount: Decimal };

export interface TrailingStopSpec {
  /** Absolute distance in quote; exactly one of `offset` and `offsetPercent`. */
  readonly offset?: Decimal;
  /** Fraction of price (0.01 = 1%). */
  readonly offsetPercent?: Decimal;
  /** Start trailing only once the price reaches this; omitted: trail from creation. */
  readonly activationPrice?: Decimal;
}

/** Open or grow a position. */
export interface OpenIntent extends IntentBase {
  readonly kind: 'open';
  readonly direction: Direction;
  readonly entry: EntryOrder;
  readonly sizing: Sizing;
  readonly leverage: Decimal;
  /** Attached stop-loss trigger (spawns a `stop` child when the entry fills). */
  readonly stopLoss?: Decimal;
  /** Attached take-profit trigger. */
  readonly takeProfit?: Decimal;
  /** Smallest acceptable position size for the amount (the API's `expectedAmount`). */
  readonly minSize?: Decimal;
  /** How the size was chosen, for the record (e.g. `{ kind: 'risk', share: '0.01' }`). */
  readonly sizedBy?: { readonly kind: 'quote' | 'base' | 'risk'; readonly [k: string]: unknown };
}

/** Close all or part of a position at market. */
export interface CloseIntent extends IntentBase {
  readonly kind: 'close';
  readonly direction: Direction;
  /** Position to close; omitted: the account's open position on `asset` in `direction`. */
  readonly positionId?: string;
  /** Base size to close; omitted: all of it. */
  readonly size?: Decimal;
}

/**
 * Attach, move or remove protective orders of a position. For each of `stopLoss`, `takeProfit` and
 * `trailingStop`: undefined leaves it alone, a value attaches it or moves the existing one, null removes it.
 */
export interface ProtectIntent extends IntentBase {
  readonly kind: 'protect';
  readonly direction: Direction;
  readonly positionId?: string;
  readonly stopLoss?: Decimal | null;
  readonly takeProfit?: Decimal | null;
  readonly trailingStop?: TrailingStopSpec | null;
}

/** Cancel one active order. */
export interface CancelIntent extends IntentBase {
  readonly kind: 'cancel';
  readonly orderId: string;
}

/** Flatten: `positions` closes every position (pending entries stay), `account` also cancels every order. */
export interface CloseAllIntent extends IntentBase {
  readonly kind: 'close_all';
  readonly scope: 'positions' | 'account';
}

export type OrderIntent = OpenIntent | CloseIntent | ProtectIntent | CancelIntent | CloseAllIntent;
export type IntentKind = OrderIntent['kind'];

/**
 * Whether an intent can only shrink exposure. In the guard's REDUCING state only these pass; in
 * HALTED only cancels and flattening. A protective order narrows the worst case, so it counts as reducing.
 */
export function isReducing(intent: OrderIntent): boolean {
  return intent.kind !== 'open';
}

/** Protective orders are never dropped from a queue and go first. */
export function isProtective(intent: OrderIntent): boolean {
  return intent.kind === 'protect' || intent.kind === 'cancel' || intent.kind === 'close_all';
}
