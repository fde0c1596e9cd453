/**
 * `ctx.intents`: the builders a strategy makes its intents with. They give each intent a unique id
 * (`<strategy>:<uuid>`), fill the account, asset and time, and resolve the size: a quote amount, a
 * base size, or a share of equity at risk down to the stop (see `sizeByRisk`). Builders only build:
 * the strategy still emits what they return on its intent stream.
 */
import type { Decimal } from 'decimal.js';
import type { Direction } from '../api/types.js';
import type { Clock } from '../core/clock.js';
import { dec, Dec, ONE } from '../core/decimal.js';
import type { MarketSnapshot, RiskSnapshot } from '../feed/types.js';
import type {
  CancelIntent,
  CloseAllIntent,
  CloseIntent,
  EntryOrder,
  OpenIntent,
  ProtectIntent,
  Sizing,
  TrailingStopSpec,
} from './intents.js';
import { IntentError, sizeByRisk } from './sizing.js';

/** A decimal as a strategy may pass it: a Decimal, a decimal string or a safe integer. Never a fraction as a JS number. */
export type DecimalInput = Decimal | string | number;

export type SizeSpec =
  /** Reserve this quote amount (margin + fee). */
  | { readonly quote: DecimalInput }
  /** Open this base size; `maxAmount` is the reserve sent with it (default: its cost at the reference price plus `reserveBuffer`). */
  | { readonly base: DecimalInput; readonly maxAmount?: DecimalInput }
  /** Lose at most this share of equity if the stop is hit (needs `stopLoss`); `maxAmount` caps the reserve. */
  | { readonly risk: DecimalInput; readonly maxAmount?: DecimalInput };

export interface OpenSpec {
  /** Default: the strategy's only asset. */
  readonly asset?: string;
  readonly size: SizeSpec;
  /** Default `{ type: 'market' }`. */
  readonly entry?: EntryOrder;
  /** Default 1. */
  readonly leverage?: DecimalInput;
  readonly stopLoss?: DecimalInput;
  readonly takeProfit?: DecimalInput;
  readonly minSize?: DecimalInput;
  readonly note?: string;
}

export interface CloseSpec {
  readonly asset?: string;
  readonly direction: Direction;
  readonly positionId?: string;
  /** Base size; omitted: the whole position. */
  readonly size?: DecimalInput;
  readonly note?: string;
}

export interface ProtectSpec {
  readonly asset?: string;
  readonly direction: Direction;
  readonly positionId?: string;
  readonly stopLoss?: DecimalInput | null;
  readonly takeProfit?: DecimalInput | null;
  readonly trailingStop?: TrailingStopSpec | null;
  readonly note?: string;
}

export interface CancelSpec {
  readonly orderId: string;
  readonly asset?: string;
  readonly note?: string;
}

export interface CloseAllSpec {
  /** Default `positions`. */
  readonly scope?: 'positions' | 'account';
  readonly note?: string;
}

/** What the builders read; the strategy context provides it. */
export interface IntentEnvironment {
  readonly strategy: string;
  readonly accountId: string;
  readonly assets: readonly string[];
  readonly clock: Clock;
  /** A fresh unique id (a UUID live; seeded in reproducible replays). */
  readonly newId: () => string;
  latestMarket(asset: string): MarketSnapshot | undefined;
  latestRisk(): RiskSnapshot | undefined;
  /** Extra reserve on a base-size order's default `maxAmount` (0.01 = 1%). Default 0.01. */
  readonly reserveBuffer?: Decimal;
}

/** Extra reserve on a base-size order's default `maxAmount` when the environment gives none (1%). */
const DEFAULT_RESERVE_BUFFER = dec('0.01');

/** `asset` of a `close_all` intent: it applies to every market of the account. */
export const ALL_ASSETS = '*';

export class IntentBuilders {
  readonly #env: IntentEnvironment;

  constructor(env: IntentEnvironment) {
    this.#env = env;
  }

  openLong(spec: OpenSpec): OpenIntent {
    return this.#open('long', spec);
  }

  openShort(spec: OpenSpec): OpenIntent {
    return this.#open('short', spec);
  }

  open(direction: Direction, spec: OpenSpec): OpenIntent {
    return this.#open(direction, spec);
  }

  close(spec: CloseSpec): CloseIntent {
    requireDirection(spec.direction);
    return Object.assign(this.#base(spec.asset, spec.note), {
      kind: 'close' as const,
      direction: spec.direction,
      ...(spec.positionId !== undefined ? { positionId: spec.positionId } : {}),
      ...(spec.size !== undefined ? { size: positive(spec.size, 'size') } : {}),
    });
  }

  protect(spec: ProtectSpec): ProtectIntent {
    requireDirection(spec.direction);
    if (spec.stopLoss === undefined && spec.takeProfit === undefined && spec.trailingStop === undefined) {
      throw new IntentError('protect', 'give at least one of stopLoss, takeProfit, trailingStop (null removes one)');
    }
    if (spec.trailingStop) checkTrailing(spec.trailingStop);
    return Object.assign(this.#base(spec.asset, spec.note), {
      kind: 'protect' as const,
      direction: spec.direction,
      ...(spec.positionId !== undefined ? { positionId: spec.positionId } : {}),
      ...(spec.stopLoss !== undefined ? { stopLoss: spec.stopLoss === null ? null : positive(spec.stopLoss, 'stopLoss') } : {}),
      ...(spec.takeProfit !== undefined
        ? { takeProfit: spec.takeProfit === null ? null : positive(spec.takeProfit, 'takeProfit') }
        : {}),
      ...(spec.trailingStop !== undefined ? { trailingStop: spec.trailingStop } : {}),
    });
  }

  cancel(spec: CancelSpec): CancelIntent {
    if (typeof spec.orderId !== 'string' || spec.orderId.length === 0) {
      throw new IntentError('orderId', 'expected the id of the order to cancel');
    }
    return Object.assign(this.#base(spec.asset, spec.note), { kind: 'cancel' as const, orderId: spec.orderId });
  }

  closeAll(spec: CloseAllSpec = {}): CloseAllIntent {
    const scope = spec.scope ?? 'positions';
    if (scope !== 'positions' && scope !== 'account') {
      throw new IntentError('scope', `expected "positions" or "account", got ${JSON.stringify(scope)}`);
    }
    return Object.assign(this.#baseFor(ALL_ASSETS, spec.note), { kind: 'close_all' as const, scope });
  }

  #open(direction: Direction, spec: OpenSpec): OpenIntent {
    const base = this.#base(spec.asset, spec.note);
    const entry = spec.entry ?? { type: 'market' as const };
    checkEntry(entry);
    const leverage = spec.leverage === undefined ? ONE : positive(spec.leverage, 'leverage');
    const stopLoss = spec.stopLoss === undefined ? undefined : positive(spec.stopLoss, 'stopLoss');
    const takeProfit = spec.takeProfit === undefined ? undefined : positive(spec.takeProfit, 'takeProfit');
    const minSize = spec.minSize === undefined ? undefined : positive(spec.minSize, 'minSize');
    const size = spec.size as Record<string, DecimalInput | undefined> | undefined;
    if (!size || typeof size !== 'object') throw new IntentError('size', 'expected { quote }, { base } or { risk }');
    const kinds = (['quote', 'base', 'risk'] as const).filter((k) => size[k] !== undefined);
    if (kinds.length !== 1) {
      throw new IntentError('size', `expected exactly one of quote, base, risk; got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}`);
    }

    let sizing: Sizing;
    let sizedBy: OpenIntent['sizedBy'];
    if (size['quote'] !== undefined) {
      const amount = positive(size['quote'], 'size.quote');
      sizing = { kind: 'quote', amount };
      sizedBy = { kind: 'quote', amount: amount.toString() };
    } else if (size['base'] !== undefined) {
      const baseSize = positive(size['base'], 'size.base');
      let maxAmount: Decimal;
      if (size['maxAmount'] !== undefined) {
        maxAmount = positive(size['maxAmount'], 'size.maxAmount');
      } else {
        const { price, fee } = this.#reference(base.asset, entry, 'size.base');
        const buffer = this.#env.reserveBuffer ?? DEFAULT_RESERVE_BUFFER;
        maxAmount = baseSize
          .times(price)
          .times(ONE.div(leverage).plus(fee))
          .times(buffer.plus(1))
          .toDecimalPlaces(9, Dec.ROUND_UP);
      }
      sizing = { kind: 'base', size: baseSize, maxAmount };
      sizedBy = { kind: 'base', size: baseSize.toString(), maxAmount: maxAmount.toString() };
    } else {
      const share = positive(size['risk']!, 'size.risk');
      if (stopLoss === undefined) throw new IntentError('stopLoss', 'sizing by risk needs a stopLoss: the risk is the loss down to it');
      const risk = this.#env.latestRisk();
      if (!risk) {
        throw new IntentError('size.risk', `no risk snapshot of account ${this.#env.accountId} yet: equity unknown`);
      }
      const { price, fee } = this.#reference(base.asset, entry, 'size.risk');
      const result = sizeByRisk({ direction, equity: risk.data.currentEquity, share, entry: price, stop: stopLoss, leverage, feeRate: fee });
      let amount = result.amount;
      let capped = false;
      if (size['maxAmount'] !== undefined) {
        const cap = positive(size['maxAmount'], 'size.maxAmount');
        if (amount.gt(cap)) {
          amount = cap;
          capped = true;
        }
      }
      if (!amount.gt(0)) throw new IntentError('size.risk', `resolves to a zero amount (equity ${risk.data.currentEquity.toString()})`);
      sizing = { kind: 'quote', amount };
      sizedBy = {
        kind: 'risk',
        share: share.toString(),
        equity: risk.data.currentEquity.toString(),
        entry: price.toString(),
        stop: stopLoss.toString(),
        leverage: leverage.toString(),
        fee: fee.toString(),
        amount: amount.toString(),
        lossAtStop: result.lossAtStop.toString(),
        ...(capped ? { cappedBy: 'maxAmount' } : {}),
      };
    }
    return Object.assign(base, {
      kind: 'open' as const,
      direction,
      entry,
      sizing,
      leverage,
      ...(stopLoss !== undefined ? { stopLoss } : {}),
      ...(takeProfit !== undefined ? { takeProfit } : {}),
      ...(minSize !== undefined ? { minSize } : {}),
      sizedBy,
    });
  }

  /** Price the entry is expected at, and the market's fee rate. */
  #reference(asset: string, entry: EntryOrder, field: string): { price: Decimal; fee: Decimal } {
    const market = this.#env.latestMarket(asset);
    if (!market) throw new IntentError(field, `no market snapshot of ${asset} yet: price and fee unknown`);
    const price =
      entry.type === 'market'
        ? market.price
        : entry.type === 'limit'
          ? entry.price
          : entry.type === 'stop_market'
            ? entry.trigger
            : entry.limit;
    return { price, fee: market.data.settings.fee };
  }

  #base(asset: string | undefined, note: string | undefined) {
    return this.#baseFor(pickAsset(this.#env.assets, asset), note);
  }

  /**
   * The fields every intent starts with, in a new object each intent's own fields are assigned onto:
   * an object literal that spreads another and then adds fields costs ~10 µs in Node 20's V8 (a new
   * hidden class each time), 20–30 times an assignment's cost.
   */
  #baseFor(asset: string, note: string | undefined) {
    return {
      id: `${this.#env.strategy}:${this.#env.newId()}`,
      strategy: this.#env.strategy,
      accountId: this.#env.accountId,
      asset,
      createdAt: this.#env.clock.now(),
      ...(note !== undefined ? { note } : {}),
    };
  }

}

/**
 * The asset a call names, checked against the strategy's assets; omitted, the only one. `what` names
 * the call in the message (the context's streams); the builders leave it out.
 */
export function pickAsset(assets: readonly string[], asset: string | undefined, what?: string): string {
  const at = what === undefined ? '' : `${what}: `;
  if (asset === undefined) {
    if (assets.length === 1) return assets[0]!;
    throw new IntentError('asset', `${at}the strategy trades ${assets.length} assets (${assets.join(', ')}); name one`);
  }
  if (!assets.includes(asset)) {
    throw new IntentError('asset', `${at}${JSON.stringify(asset)} is not one of the strategy's assets (${assets.join(', ')})`);
  }
  return asset;
}

function toDecimal(value: DecimalInput, field: string): Decimal {
  try {
    const d = dec(value);
    if (!d.isFinite()) throw new Error('not finite');
    return d;
  } catch (error) {
    const why = typeof value === 'number' ? 'a fractional JS number is refused (money is never a float); pass a string or Decimal' : 'not a decimal';
    throw new IntentError(field, `${why}, got ${typeof value === 'object' ? String(value) : JSON.stringify(value)}`);
  }
}

function positive(value: DecimalInput, field: string): Decimal {
  const d = toDecimal(value, field);
  if (!d.gt(0)) throw new IntentError(field, `must be positive, got ${d.toString()}`);
  return d;
}

function requireDirection(direction: unknown): void {
  if (direction !== 'long' && direction !== 'short') {
    throw new IntentError('direction', `expected "long" or "short", got ${JSON.stringify(direction)}`);
  }
}

function checkEntry(entry: EntryOrder): void {
  switch (entry.type) {
    case 'market':
      return;
    case 'limit':
      positive(entry.price, 'entry.price');
      return;
    case 'stop_market':
      positive(entry.trigger, 'entry.trigger');
      return;
    case 'stop_limit':
      positive(entry.trigger, 'entry.trigger');
      positive(entry.limit, 'entry.limit');
      return;
    default:
      throw new IntentError('entry.type', `expected market, limit, stop_market or stop_limit, got ${JSON.stringify((entry as { type: unknown }).type)}`);
  }
}

function checkTrailing(spec: TrailingStopSpec): void {
  const given = [spec.offset, spec.offsetPercent].filter((v) => v !== undefined).length;
  if (given !== 1) throw new IntentError('trailingStop', 'give exactly one of offset and offsetPercent');
  if (spec.offset !== undefined) positive(spec.offset, 'trailingStop.offset');
  if (spec.offsetPercent !== undefined) {
    const p = positive(spec.offsetPercent, 'trailingStop.offsetPercent');
    if (p.gte(1)) throw new IntentError('trailingStop.offsetPercent', `must be below 1 (100%), got ${p.toString()}`);
  }
}
