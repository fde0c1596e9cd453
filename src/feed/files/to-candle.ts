import { Dec } from '../../core/decimal.js';
import { CANDLE_PERIOD_MS, CANDLE_PERIODS, type Candle, type CandlePeriod } from '../types.js';
import type { CandleRow } from './types.js';

/** The `CandlePeriod` whose length is `ms`, if any (files of other periods still read fine). */
export function candlePeriodOf(ms: number | null): CandlePeriod | undefined {
  return CANDLE_PERIODS.find((p) => CANDLE_PERIOD_MS[p] === ms);
}

/** A period for a human: `1h`, `1D`, else whole hours, minutes or seconds (`2h`, `3m`, `0.06s`). */
export function describePeriod(ms: number): string {
  return candlePeriodOf(ms) ?? (ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);
}

/**
 * A file row as the feed's `Candle`, prices as exact Decimals. `ticks` is 0: the candle was read
 * from a file, not built from snapshots.
 */
export function rowToCandle(row: CandleRow, asset: string, period: CandlePeriod): Candle {
  return {
    asset,
    period,
    openTime: row.time,
    closeTime: row.time + CANDLE_PERIOD_MS[period],
    open: new Dec(row.open),
    high: new Dec(row.high),
    low: new Dec(row.low),
    close: new Dec(row.close),
    ticks: 0,
  };
}
