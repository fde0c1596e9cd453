/**
 * Where the sandbox's index prices come from: a seeded random walk (the default; ships no data) or a
 * replay of a candle file (`timestamp_ms,open,high,low,close,volume`, oldest first). Both produce price
 * points on the sandbox timeline; the server applies every point whose time has come, in time order,
 * before it serves a request or on its timer. A candle becomes four points spread over its span:
 * open, then low and high in the order a candle of that colour usually takes them (a rising candle
 * dips first, a falling one peaks first), then close.
 */
import { readFileSync } from 'node:fs';
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { SeededRandom } from './prng.js';

export interface PricePoint {
  /** Sandbox time, unix ms. */
  atMs: number;
  price: Decimal;
}

export interface PriceTrack {
  /** The price the market starts at (at the sandbox start time). */
  readonly initialPrice: Decimal;
  /** Points with `atMs <= untilMs` not handed out before, oldest first. */
  pointsUntil(untilMs: number): PricePoint[];
  /** An operator set the price by hand; a walk continues from it, a replay ignores it. */
  override(price: Decimal): void;
}

/** Settings of a seeded random walk. */
export interface RandomWalkOptions {
  /** Price at the start. */
  initial: Decimal;
  /** Sandbox ms between two steps. */
  stepMs: number;
  /** Largest relative move of one step (0.001 = 0.1%); each step draws uniformly in ±volatility. */
  volatility: Decimal;
  /** Decimal places prices are rounded to. */
  decimals: number;
  seed: string;
}

const WALK_RESOLUTION = 1_000_000;

export class RandomWalkTrack implements PriceTrack {
  readonly initialPrice: Decimal;
  readonly #o: RandomWalkOptions;
  readonly #rng: SeededRandom;
  readonly #floor: Decimal;
  #price: Decimal;
  #nextAt: number;

  constructor(options: RandomWalkOptions, startMs: number) {
    this.#o = options;
    this.#rng = new SeededRandom(options.seed);
    this.#floor = new Dec(1).div(new Dec(10).pow(options.decimals));
    this.initialPrice = options.initial.toDecimalPlaces(options.decimals, Dec.ROUND_HALF_EVEN);
    this.#price = this.initialPrice;
    this.#nextAt = startMs + options.stepMs;
  }

  pointsUntil(untilMs: number): PricePoint[] {
    const out: PricePoint[] = [];
    while (this.#nextAt <= untilMs) {
      // An integer draw in ±WALK_RESOLUTION keeps the step exact in decimal.
      const draw = this.#rng.nextInt(2 * WALK_RESOLUTION + 1) - WALK_RESOLUTION;
      const move = this.#o.volatility.times(draw).div(WALK_RESOLUTION);
      let next = this.#price.times(move.plus(1)).toDecimalPlaces(this.#o.decimals, Dec.ROUND_HALF_EVEN);
      if (next.lt(this.#floor)) next = this.#floor;
      this.#price = next;
      out.push({ atMs: this.#nextAt, price: next });
      this.#nextAt += this.#o.stepMs;
    }
    return out;
  }

  override(price: Decimal): void {
    this.#price = price;
  }
}

/** A candle as read: prices stay decimal text until replayed (a month of minutes is 170k prices). */
export interface Candle {
  /** Open time in the file, unix ms. */
  timeMs: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** Settings of a candle replay. */
export interface ReplayOptions {
  candles: readonly Candle[];
  /** Sandbox ms one candle spans; together with the clock speed this is the replay speed. */
  candleMs: number;
  /** Start over at the end of the file (else the last close holds). */
  loop: boolean;
}

export class CandleReplayTrack implements PriceTrack {
  readonly initialPrice: Decimal;
  readonly #o: ReplayOptions;
  readonly #startMs: number;
  /** Index of the next point: candle = floor(i / 4), corner = i % 4. */
  #next = 0;

  constructor(options: ReplayOptions, startMs: number) {
    if (options.candles.length === 0) throw new RangeError('CandleReplayTrack: no candles');
    this.#o = options;
    this.#startMs = startMs;
    this.initialPrice = new Dec(options.candles[0]!.open);
    // The first point (the first open) is the initial price itself, at the start.
    this.#next = 1;
  }

  pointsUntil(untilMs: number): PricePoint[] {
    const out: PricePoint[] = [];
    const n = this.#o.candles.length;
    for (;;) {
      if (!this.#o.loop && this.#next >= n * 4) break;
      const atMs = this.#startMs + Math.floor((this.#next * this.#o.candleMs) / 4);
      if (atMs > untilMs) break;
      const candle = this.#o.candles[Math.floor(this.#next / 4) % n]!;
      out.push({ atMs, price: cornerPrice(candle, this.#next % 4) });
      this.#next += 1;
    }
    return out;
  }

  override(): void {
    // A replay follows its file; a hand-set price lasts until the next point.
  }
}

function cornerPrice(c: Candle, corner: number): Decimal {
  const rising = new Dec(c.close).gte(c.open);
  switch (corner) {
    case 0:
      return new Dec(c.open);
    case 1:
      return new Dec(rising ? c.low : c.high);
    case 2:
      return new Dec(rising ? c.high : c.low);
    default:
      return new Dec(c.close);
  }
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * Read a candle CSV (`timestamp_ms,open,high,low,close,volume`, oldest first; a header line is allowed).
 * Bad rows are a `ConfigError` naming the file, line and column.
 */
export function readCandleFile(file: string, configKey: string): Candle[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(configKey, `cannot read the candle file ${file}: ${(err as Error).message}`);
  }
  const candles: Candle[] = [];
  const lines = text.split(/\r?\n/);
  const columns = ['timestamp_ms', 'open', 'high', 'low', 'close'] as const;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const cells = line.split(',').map((c) => c.trim());
    if (candles.length === 0 && i === 0 && !NUMBER.test(cells[0] ?? '')) continue; // header
    const where = { file, line: i + 1 };
    if (cells.length < 5) {
      throw new ConfigError(configKey, `expected timestamp_ms,open,high,low,close[,volume], got ${cells.length} column(s)`, where);
    }
    for (let k = 0; k < columns.length; k += 1) {
      if (!NUMBER.test(cells[k]!)) throw new ConfigError(configKey, `column ${columns[k]}: ${JSON.stringify(cells[k])} is not a number`, where);
    }
    const timeMs = Number(cells[0]);
    const [open, high, low, close] = [cells[1]!, cells[2]!, cells[3]!, cells[4]!];
    if (!Number.isSafeInteger(timeMs)) throw new ConfigError(configKey, `column timestamp_ms: ${cells[0]} is not an integer of ms`, where);
    // Plausibility checks only; the prices themselves stay exact decimal text.
    if (!(Number(open) > 0 && Number(high) > 0 && Number(low) > 0 && Number(close) > 0)) throw new ConfigError(configKey, 'prices must be positive', where);
    if (Number(high) < Number(low)) throw new ConfigError(configKey, `high ${high} is below low ${low}`, where);
    const prev = candles[candles.length - 1];
    if (prev && timeMs <= prev.timeMs) throw new ConfigError(configKey, `timestamp ${timeMs} is not after the previous row's ${prev.timeMs} (rows must be oldest first)`, where);
    candles.push({ timeMs, open, high, low, close });
  }
  if (candles.length === 0) throw new ConfigError(configKey, `the candle file ${file} holds no candles`);
  return candles;
}

/** The candle period of a file: the smallest gap between consecutive candles (gaps in the data are longer). */
export function inferCandleMs(candles: readonly Candle[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 1; i < candles.length && i < 1000; i += 1) {
    best = Math.min(best, candles[i]!.timeMs - candles[i - 1]!.timeMs);
  }
  return Number.isFinite(best) ? best : 60_000;
}
