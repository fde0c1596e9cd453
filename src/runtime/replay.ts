/**
 * Candles in, a time-ordered series of index prices out, pushed through the local engine and then
 * published as snapshots. Every strategy therefore sees exactly what it would see live: snapshots,
 * and candles built from them only after their period has ended.
 *
 * Inside one candle of period p starting at t the prices come as: the open at t, then the two
 * extremes (low first on a rising candle, high first on a falling one) at t + p/3 and t + 2p/3,
 * then the close at t + p − 1 ms. A repeated price inside a candle is not sent again (it carries no
 * news and costs an engine step); the open always is, so every candle reaches the candle builder.
 *
 * Prices travel as fp9 integers (price × 10^9), the engine's own unit: a replayed tick makes no
 * Decimal. A row's text is read straight into fp9 when it has at most 9 decimals (every file the
 * readers know); longer text goes through Decimal and rounds half-even, as the engine rounds a
 * Decimal price, and its order and repeats are decided on the exact values as before.
 */
import { objectArray } from '../core/arrays.js';
import { Dec } from '../core/decimal.js';
import { fp9Digits } from '../core/fp9.js';
import { decToRaw } from '../engine/fixed.js';
import type { ReplayRow } from '../feed/files/types.js';

export interface Tick {
  readonly time: number;
  /** Index price, fp9 (price × 10^9). */
  readonly priceFp9: bigint;
}

const PAD = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000', '000000000'];

/** fp9 of a plain decimal (digits, at most one dot with 1 to 9 digits after it); undefined for anything else. */
export function exactFp9(text: string): bigint | undefined {
  // BigInt of a double costs less than half of BigInt of a string, four times per replayed candle.
  const digits = fp9Digits(text);
  if (Number.isNaN(digits)) return undefined;
  if (digits !== Number.POSITIVE_INFINITY) return BigInt(digits);
  const dot = text.indexOf('.');
  if (dot === -1) return BigInt(text + PAD[9]!);
  return BigInt(text.slice(0, dot) + text.slice(dot + 1) + PAD[9 - (text.length - dot - 1)]!);
}

/** The ticks of one candle, in the order the replay sends them. */
export function candleTicks(row: ReplayRow, periodMs: number): Tick[] {
  const out: Tick[] = [];
  writeTicks(row, periodMs, (time, priceFp9) => out.push({ time, priceFp9 }));
  return out;
}

/** A price's text, which a row without its fp9 integer must have. */
function textOf(text: string | undefined): string {
  if (text === undefined) throw new TypeError('replay: a row with neither the fp9 integer nor the text of a price');
  return text;
}

/** Where `writeTicks` puts a candle's ticks, in order; `first` is the candle's open. */
type TickOut = (time: number, priceFp9: bigint, first: boolean) => void;

function writeTicks(row: ReplayRow, periodMs: number, put: TickOut): void {
  const t = row.time;
  // The reader's integers where it gave them (see CandleRow.openFp9), else the texts'.
  const open = row.openFp9 ?? exactFp9(textOf(row.open));
  const high = row.highFp9 ?? exactFp9(textOf(row.high));
  const low = row.lowFp9 ?? exactFp9(textOf(row.low));
  const close = row.closeFp9 ?? exactFp9(textOf(row.close));
  if (open !== undefined && high !== undefined && low !== undefined && close !== undefined) {
    // Exact: comparing the integers is comparing the prices.
    const rising = close >= open;
    put(t, open, true);
    let lastTime = t;
    let last = open;
    const second = rising ? low : high;
    if (second !== last) put((lastTime = Math.max(t + Math.floor(periodMs / 3), lastTime + 1)), (last = second), false);
    const third = rising ? high : low;
    if (third !== last) put((lastTime = Math.max(t + Math.floor((2 * periodMs) / 3), lastTime + 1)), (last = third), false);
    if (close !== last) put(Math.max(t + periodMs - 1, lastTime + 1), close, false);
    return;
  }
  // More than 9 places: order and repeats on the exact Decimals, the engine's rounding for the price.
  const o = new Dec(textOf(row.open));
  const h = new Dec(textOf(row.high));
  const l = new Dec(textOf(row.low));
  const c = new Dec(textOf(row.close));
  const rising = c.gte(o);
  const seq = [o, rising ? l : h, rising ? h : l, c];
  const times = [t, t + Math.floor(periodMs / 3), t + Math.floor((2 * periodMs) / 3), t + periodMs - 1];
  put(t, decToRaw(o), true);
  let lastTime = t;
  let sent = o;
  for (let i = 1; i < 4; i += 1) {
    if (seq[i]!.eq(sent)) continue;
    sent = seq[i]!;
    lastTime = Math.max(times[i]!, lastTime + 1);
    put(lastTime, decToRaw(sent), false);
  }
}

export interface ReplayMarket {
  readonly asset: string;
  readonly marketId: string;
  readonly periodMs: number;
}

/** One price step of the replay: a tick of one market's candle (the step is its own tick: one object a step). */
export interface ReplayStep extends Tick {
  readonly market: ReplayMarket;
  /** True on the first tick of a candle. */
  readonly candleStart: boolean;
}

/** A step as the interleaver holds it: written in place when `reuseSteps` recycles it. */
interface PendingStep {
  market: ReplayMarket;
  time: number;
  priceFp9: bigint;
  candleStart: boolean;
  order: number;
}

export interface TickInterleaverOptions {
  /**
   * Recycle step objects: a step handed out by `add` or `flush` is written over by the next call
   * (a replay that plays each call's steps before the next call, and keeps none, may turn this on;
   * one market's replay then makes no object per step).
   */
  readonly reuseSteps?: boolean;
}

const NONE: readonly ReplayStep[] = Object.freeze([]);

const byTimeThenSource = (a: PendingStep, b: PendingStep): number => a.time - b.time || a.order - b.order;

function inOrder(steps: readonly PendingStep[]): boolean {
  for (let i = 1; i < steps.length; i += 1) if (byTimeThenSource(steps[i - 1]!, steps[i]!) > 0) return false;
  return true;
}

/**
 * Interleaves the ticks of several markets' candles by time, synchronously. Candles must come merged
 * by open time (see `mergeByTime`). A candle's ticks lie inside its period, so every pending tick
 * earlier than the next candle's open can go out; ticks at the same time go in market order. At most
 * four ticks per market wait at any moment, whatever the candle periods.
 */
export class TickInterleaver {
  readonly #markets: ReadonlyMap<string, ReplayMarket>;
  #pending: PendingStep[] = objectArray();
  /**
   * The array `add` returned last when it released every pending step, reused by the next such
   * release: a one-market replay releases all of them at each row, and then makes no array a candle.
   */
  #spare: PendingStep[] = objectArray();
  /** The candle `#put` writes steps for. */
  #market: ReplayMarket | undefined;
  #source = 0;
  /** Played steps to write again (`reuseSteps`). */
  readonly #free: PendingStep[] = objectArray();
  readonly #reuse: boolean;
  readonly #put: TickOut = (time, priceFp9, first) => {
    const step = this.#free.pop();
    if (step === undefined) {
      this.#pending.push({ market: this.#market!, time, priceFp9, candleStart: first, order: this.#source });
      return;
    }
    step.market = this.#market!;
    step.time = time;
    step.priceFp9 = priceFp9;
    step.candleStart = first;
    step.order = this.#source;
    this.#pending.push(step);
  };

  constructor(markets: ReadonlyMap<string, ReplayMarket>, options: TickInterleaverOptions = {}) {
    this.#markets = markets;
    this.#reuse = options.reuseSteps === true;
  }

  /**
   * Take the next candle of market `key` (from source `source`); returns the steps now due, in order.
   * The array is the caller's until its next call to `add` or `flush`.
   */
  add(key: string, source: number, row: ReplayRow): readonly ReplayStep[] {
    const market = this.#markets.get(key);
    if (!market) throw new Error(`replayTicks: rows for unknown market ${key}`);
    const due = this.#release(row.time);
    this.#market = market;
    this.#source = source;
    writeTicks(row, market.periodMs, this.#put);
    return due;
  }

  /** Every step still waiting (the end of the data). */
  flush(): readonly ReplayStep[] {
    return this.#release(Number.POSITIVE_INFINITY);
  }

  #release(before: number): readonly ReplayStep[] {
    const pending = this.#pending;
    if (pending.length === 0) return NONE;
    // One market's ticks arrive in order already; only several markets' need sorting (which allocates).
    if (pending.length > 1 && !inOrder(pending)) pending.sort(byTimeThenSource);
    let n = 0;
    while (n < pending.length && pending[n]!.time < before) n += 1;
    if (n === pending.length) {
      const spare = this.#spare;
      // The steps the last such release handed out have been played since. Emptied by pop, not by
      // `length = 0`, which drops the array's backing store and makes the next push allocate a new
      // one: 144 bytes a row, ~6 MB of the month's garbage.
      const free = this.#free;
      while (spare.length > 0) {
        const step = spare.pop()!;
        if (this.#reuse) free.push(step);
      }
      this.#pending = spare;
      this.#spare = pending;
      return pending;
    }
    this.#pending = pending.slice(n);
    return pending.slice(0, n);
  }
}
