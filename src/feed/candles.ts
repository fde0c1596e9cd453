/**
 * The one candle builder, used live and in backtests alike: market snapshots in, candles of index
 * prices out, on UTC boundaries (unix-epoch multiples of the period, so `1D` starts at 00:00 UTC and
 * `4h` at 00, 04, 08 … UTC).
 *
 * Rules, which together make a backtest unable to look ahead:
 * - A candle is emitted once, when the first snapshot at or after its end arrives. Nothing is emitted
 *   for the period still running.
 * - A period without any snapshot produces no candle: a gap stays a gap (no synthetic flat candles),
 *   and the candle before the gap is emitted by the first snapshot after it.
 * - Time is the snapshot's `takenAt` (the pipeline's clock). Stale re-emissions carry no new price and
 *   are ignored, and so is a snapshot older than the candle being built (it arrived out of order).
 *
 * Speed matters (backtests push about a million snapshots a second through it): per snapshot the
 * builder keeps references to the snapshot's Decimal (no new Decimal), compares only when the price
 * object changed (on the fp9 integer the engine's Decimals carry), and only a finished candle allocates.
 */
import type { Decimal } from 'decimal.js';
import { Observable, share, type Subscriber, type Subscription } from 'rxjs';
import { decGreater, decLess, fp9Decimal, taggedFp9 } from '../core/fp9.js';
import { CANDLE_PERIOD_MS, CANDLE_PERIODS, type Candle, type CandlePeriod, type MarketSnapshot } from './types.js';

export function isCandlePeriod(value: unknown): value is CandlePeriod {
  return typeof value === 'string' && (CANDLE_PERIODS as readonly string[]).includes(value);
}

/** Start of the period that holds `time` (UTC, unix ms). */
export function periodStart(time: number, period: CandlePeriod): number {
  const ms = CANDLE_PERIOD_MS[period];
  return Math.floor(time / ms) * ms;
}

/** Builds the candles of one asset and one period, imperatively (the fast path for replays). */
export class CandleBuilder {
  readonly asset: string;
  readonly period: CandlePeriod;
  readonly #ms: number;
  #openTime = Number.NaN;
  #closeTime = Number.NEGATIVE_INFINITY;
  #open: Decimal | undefined;
  /** Undefined while the high is only known as fp9 (`#highRaw`, from `quietPrice`); so the low and close. */
  #high: Decimal | undefined;
  #highRaw: bigint | undefined;
  #low: Decimal | undefined;
  #lowRaw: bigint | undefined;
  #close: Decimal | undefined;
  #closeRaw: bigint | undefined;
  #ticks = 0;

  constructor(asset: string, period: CandlePeriod) {
    if (!isCandlePeriod(period)) {
      throw new RangeError(`candle period: expected one of ${CANDLE_PERIODS.join(', ')}, got ${JSON.stringify(period)}`);
    }
    this.asset = asset;
    this.period = period;
    this.#ms = CANDLE_PERIOD_MS[period];
  }

  /** Add one price at `time`; returns the candle this tick completed, if it completed one. */
  update(time: number, price: Decimal): Candle | undefined {
    if (time < this.#closeTime) {
      if (time < this.#openTime) return undefined;
      // Same Decimal object as the last tick (an unchanged price): nothing can move.
      if (price !== this.#close) {
        if (decGreater(price, this.#highDec())) {
          this.#high = price;
          this.#highRaw = undefined;
        } else if (decLess(price, this.#lowDec())) {
          this.#low = price;
          this.#lowRaw = undefined;
        }
        this.#close = price;
        this.#closeRaw = undefined;
      }
      this.#ticks += 1;
      return undefined;
    }
    const done = this.#open === undefined ? undefined : this.#emit();
    this.#openTime = Math.floor(time / this.#ms) * this.#ms;
    this.#closeTime = this.#openTime + this.#ms;
    this.#open = this.#high = this.#low = this.#close = price;
    this.#highRaw = this.#lowRaw = this.#closeRaw = undefined;
    this.#ticks = 1;
    return done;
  }

  /**
   * `update` with a price inside the running candle (see `inside`; a price outside it would end the
   * candle, which only `update` may do, so it throws) given as fp9, for a replay step that publishes
   * no snapshot: it is kept as fp9, and its Decimal made only when the candle is emitted (or an
   * `update` compares with it), so a candle's run of new highs makes one Decimal, not one each. The
   * same candle as `update` with that price's Decimal would build.
   */
  quietPrice(time: number, raw: bigint): void {
    if (!this.inside(time)) throw new RangeError(`quietPrice: ${time} is outside the running candle [${this.#openTime}, ${this.#closeTime})`);
    const high = this.#highRaw ?? taggedFp9(this.#high!);
    const low = this.#lowRaw ?? taggedFp9(this.#low!);
    if (high === undefined || low === undefined) {
      this.update(time, fp9Decimal(raw));
      return;
    }
    if (raw > high) {
      this.#highRaw = raw;
      this.#high = undefined;
    } else if (raw < low) {
      this.#lowRaw = raw;
      this.#low = undefined;
    }
    this.#close = undefined;
    this.#closeRaw = raw;
    this.#ticks += 1;
  }

  /** Whether a price at `time` falls inside the candle being built (so `update` would end none). */
  inside(time: number): boolean {
    return time >= this.#openTime && time < this.#closeTime;
  }

  /** The candle still being built, for display only: it is not final and strategies never see it. */
  peek(): Candle | undefined {
    return this.#open === undefined ? undefined : this.#emit();
  }

  #emit(): Candle {
    return {
      asset: this.asset,
      period: this.period,
      openTime: this.#openTime,
      closeTime: this.#closeTime,
      open: this.#open!,
      high: this.#highDec(),
      low: this.#lowDec(),
      close: (this.#close ??= fp9Decimal(this.#closeRaw!)),
      ticks: this.#ticks,
    };
  }

  /** The high as a Decimal, made from its fp9 once (a close equal to it is the same value, not the same object). */
  #highDec(): Decimal {
    return (this.#high ??= fp9Decimal(this.#highRaw!));
  }

  #lowDec(): Decimal {
    return (this.#low ??= fp9Decimal(this.#lowRaw!));
  }
}

/**
 * Several periods of one asset in one pass. Periods nest (every boundary of a longer period is one of
 * each shorter period), so a price that is not a new high of the shortest running candle can not be a
 * new high of a longer one: most ticks cost one or two comparisons whatever the number of periods.
 */
export class MultiCandleBuilder {
  readonly asset: string;
  readonly periods: readonly CandlePeriod[];
  readonly #ms: number[];
  readonly #openTime: number[];
  readonly #closeTime: number[];
  readonly #open: (Decimal | undefined)[];
  readonly #high: (Decimal | undefined)[];
  readonly #low: (Decimal | undefined)[];
  /** Tick count when each running candle opened: its ticks are `#count` minus this. */
  readonly #startCount: number[];
  #count = 0;
  #close: Decimal | undefined;
  #lastTime = Number.NEGATIVE_INFINITY;

  constructor(asset: string, periods: readonly CandlePeriod[] = CANDLE_PERIODS) {
    if (periods.length === 0) throw new RangeError('candle periods: expected at least one period');
    for (const p of periods) {
      if (!isCandlePeriod(p)) {
        throw new RangeError(`candle periods: expected each of ${CANDLE_PERIODS.join(', ')}, got ${JSON.stringify(p)}`);
      }
    }
    this.asset = asset;
    this.periods = [...new Set(periods)].sort((a, b) => CANDLE_PERIOD_MS[a] - CANDLE_PERIOD_MS[b]);
    const n = this.periods.length;
    this.#ms = this.periods.map((p) => CANDLE_PERIOD_MS[p]);
    this.#openTime = new Array<number>(n).fill(Number.NaN);
    this.#closeTime = new Array<number>(n).fill(Number.NEGATIVE_INFINITY);
    this.#open = new Array<Decimal | undefined>(n).fill(undefined);
    this.#high = new Array<Decimal | undefined>(n).fill(undefined);
    this.#low = new Array<Decimal | undefined>(n).fill(undefined);
    this.#startCount = new Array<number>(n).fill(0);
  }

  /** Add one price; completed candles go to `emit`, shortest period first. */
  update(time: number, price: Decimal, emit: (candle: Candle) => void): void {
    if (time < this.#lastTime) return;
    this.#lastTime = time;
    const n = this.#ms.length;
    // Levels that roll over are always a prefix: a longer candle never ends before a shorter one.
    let rolled = 0;
    while (rolled < n && time >= this.#closeTime[rolled]!) {
      if (this.#open[rolled] !== undefined) emit(this.#candle(rolled, this.#close!));
      const ms = this.#ms[rolled]!;
      const start = Math.floor(time / ms) * ms;
      this.#openTime[rolled] = start;
      this.#closeTime[rolled] = start + ms;
      this.#open[rolled] = this.#high[rolled] = this.#low[rolled] = price;
      this.#startCount[rolled] = this.#count;
      rolled += 1;
    }
    this.#count += 1;
    if (rolled < n && price !== this.#close) {
      for (let i = rolled; i < n && decGreater(price, this.#high[i]!); i += 1) this.#high[i] = price;
      for (let i = rolled; i < n && decLess(price, this.#low[i]!); i += 1) this.#low[i] = price;
    }
    this.#close = price;
  }

  #candle(i: number, close: Decimal): Candle {
    return {
      asset: this.asset,
      period: this.periods[i]!,
      openTime: this.#openTime[i]!,
      closeTime: this.#closeTime[i]!,
      open: this.#open[i]!,
      high: this.#high[i]!,
      low: this.#low[i]!,
      close,
      ticks: this.#count - this.#startCount[i]!,
    };
  }
}

/** RxJS operator: market snapshots of one asset → its completed candles of `period`. */
export function toCandles(period: CandlePeriod) {
  return (source: Observable<MarketSnapshot>): Observable<Candle> =>
    new Observable<Candle>((subscriber) => {
      let builder: CandleBuilder | undefined;
      return feedBuilder(source, subscriber, (snapshot) => (builder ??= new CandleBuilder(snapshot.asset, period)));
    });
}

/** Each fresh snapshot of `source` into its builder, each candle that completes to `subscriber`. */
function feedBuilder(source: Observable<MarketSnapshot>, subscriber: Subscriber<Candle>, builderFor: (snapshot: MarketSnapshot) => CandleBuilder): Subscription {
  return source.subscribe({
    next(snapshot) {
      if (snapshot.stale) return;
      const candle = builderFor(snapshot).update(snapshot.takenAt, snapshot.price);
      if (candle !== undefined) subscriber.next(candle);
    },
    error: (error: unknown) => subscriber.error(error),
    complete: () => subscriber.complete(),
  });
}

/**
 * Candle streams over a feed's market streams, one shared builder per asset and period, so every
 * strategy asking for BTC 5m sees the very same candle objects.
 */
export class CandleStreams {
  readonly #market$: (asset: string) => Observable<MarketSnapshot>;
  readonly #streams = new Map<string, Observable<Candle>>();
  /** The builders of the streams someone is subscribed to, by asset: each holds one market subscription. */
  readonly #running = new Map<string, readonly CandleBuilder[]>();

  constructor(market$: (asset: string) => Observable<MarketSnapshot>) {
    this.#market$ = market$;
  }

  candles$(asset: string, period: CandlePeriod): Observable<Candle> {
    if (!isCandlePeriod(period)) {
      throw new RangeError(`candles(${JSON.stringify(asset)}, period): expected one of ${CANDLE_PERIODS.join(', ')}, got ${JSON.stringify(period)}`);
    }
    const key = `${asset}|${period}`;
    let stream = this.#streams.get(key);
    if (!stream) {
      // toCandles, with the builder made on subscribing and kept where quietTick finds it.
      stream = new Observable<Candle>((subscriber) => {
        const builder = new CandleBuilder(asset, period);
        this.#running.set(asset, [...(this.#running.get(asset) ?? []), builder]);
        const source = feedBuilder(this.#market$(asset), subscriber, () => builder);
        return () => {
          source.unsubscribe();
          this.#running.set(asset, (this.#running.get(asset) ?? []).filter((b) => b !== builder));
        };
      }).pipe(share({ resetOnRefCountZero: true }));
      this.#streams.set(key, stream);
    }
    return stream;
  }

  /** How many subscriptions to `asset`'s market stream the builders hold now. */
  observing(asset: string): number {
    return this.#running.get(asset)?.length ?? 0;
  }

  /**
   * A price of `asset` (fp9) at `time` handed to its builders directly, as its snapshot would hand it:
   * for a replay step that publishes none. False, with nothing done, when the price would end a
   * candle or start the first one: that step must be published, so the candle reaches its
   * strategies with the snapshots of that moment.
   */
  quietTick(asset: string, time: number, priceFp9: bigint): boolean {
    const builders = this.#running.get(asset);
    if (builders === undefined || builders.length === 0) return true;
    for (let i = 0; i < builders.length; i += 1) if (!builders[i]!.inside(time)) return false;
    for (let i = 0; i < builders.length; i += 1) builders[i]!.quietPrice(time, priceFp9);
    return true;
  }
}
