/**
 * Candles in, a time-ordered series of index prices out, pushed through the local engine and then
 * published as snapshots. Every strategy therefore sees exactly what it would see live: snapshots,
 * and candles built from them only after their period has ended.
 *
 * Inside one candle of period p starting at t the prices come as: the open at t, then the two
 * extremes (low first on a rising candle, high first on a falling one) at t + p/3 and t + 2p/3,
 * then the close at t + p − 1 ms. A repeated price inside a candle is not sent again (it carries no
 * news and costs an engine step); the open always is, so every candle reaches the candle builder.
 */
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import type { CandleRow } from '../feed/files/types.js';

export interface Tick {
  readonly time: number;
  readonly price: Decimal;
}

/** The ticks of one candle, in the order the replay sends them. */
export function candleTicks(row: CandleRow, periodMs: number): Tick[] {
  const open = new Dec(row.open);
  const high = new Dec(row.high);
  const low = new Dec(row.low);
  const close = new Dec(row.close);
  const rising = close.gte(open);
  const first = rising ? low : high;
  const second = rising ? high : low;
  const t = row.time;
  const ticks: Tick[] = [{ time: t, price: open }];
  const push = (time: number, price: Decimal): void => {
    const last = ticks[ticks.length - 1]!;
    if (!price.eq(last.price)) ticks.push({ time: Math.max(time, last.time + 1), price });
  };
  push(t + Math.floor(periodMs / 3), first);
  push(t + Math.floor((2 * periodMs) / 3), second);
  push(t + periodMs - 1, close);
  return ticks;
}

export interface ReplayMarket {
  readonly asset: string;
  readonly marketId: string;
  readonly periodMs: number;
}

export interface ReplayStep {
  readonly market: ReplayMarket;
  readonly tick: Tick;
  /** True on the first tick of a candle. */
  readonly candleStart: boolean;
}

/**
 * Interleave the ticks of several markets' candles by time. `rows` must be merged by candle open time
 * (see `mergeByTime`). A candle's ticks lie inside its period, so every pending tick earlier than the
 * next candle's open can go out; ticks at the same time go in market order. At most four ticks per
 * market wait at any moment, whatever the candle periods.
 */
export async function* replayTicks(
  rows: AsyncIterable<{ readonly key: string; readonly source: number; readonly row: CandleRow }>,
  markets: ReadonlyMap<string, ReplayMarket>,
): AsyncGenerator<ReplayStep> {
  let pending: Array<ReplayStep & { readonly order: number }> = [];
  function* release(before: number): Generator<ReplayStep> {
    if (pending.length === 0) return;
    pending.sort((a, b) => a.tick.time - b.tick.time || a.order - b.order);
    let n = 0;
    while (n < pending.length && pending[n]!.tick.time < before) n += 1;
    for (let i = 0; i < n; i += 1) {
      const { market, tick, candleStart } = pending[i]!;
      yield { market, tick, candleStart };
    }
    pending = pending.slice(n);
  }
  for await (const { key, source, row } of rows) {
    const market = markets.get(key);
    if (!market) throw new Error(`replayTicks: rows for unknown market ${key}`);
    yield* release(row.time);
    candleTicks(row, market.periodMs).forEach((tick, i) => pending.push({ market, tick, candleStart: i === 0, order: source }));
  }
  yield* release(Number.POSITIVE_INFINITY);
}
