/**
 * The equity chart's lines of the HTML page (equity, drawdown and the three floors the challenge
 * sets) in one pass over the run's equity samples, thinned on the buckets `MinMaxLine` (equity,
 * drawdown) and `StepLine` (floors) use: the same points those give, fed sample by sample.
 *
 * Why not those classes: a report is written once per run, so this code stays mostly interpreted,
 * and a month of minutes is 43,000 samples. Five line objects and the floors' callbacks cost about
 * seventeen calls a sample (~35 ms a month); here it is one loop with the floors turned into numbers
 * only at the samples a bucket keeps.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { fp9Decimal, fp9Number, toFp9Raw } from '../core/fp9.js';
import { bucketSize, type PlotPoint } from './downsample.js';
import { forEachEquityRaw } from './equity-sample.js';
import type { BacktestResult } from './types.js';

export interface EquityChartLines {
  readonly equity: PlotPoint[];
  readonly drawdown: PlotPoint[];
  /** Empty when the run has no challenge, or when the result carries its own floors (see `floorsOwn`). */
  readonly daily: PlotPoint[];
  readonly total: PlotPoint[];
  readonly trailing: PlotPoint[];
}

const DAY_MS = 86_400_000;

/** A bucket's lowest and highest value and where they came, for one min-max line. */
class MinMax {
  lo = 0;
  hi = 0;
  loAt = 0;
  hiAt = 0;
  readonly out: PlotPoint[] = [];
}

/**
 * The lines of `result`'s equity chart, at most about `maxPoints` points each. With `floorsOwn` the
 * floor lines are left empty (the caller draws the floors the result carries).
 */
export function equityChartLines(result: BacktestResult, maxPoints: number, floorsOwn = false): EquityChartLines {
  const series = result.equity;
  const n = series.length;
  const k = bucketSize(n, maxPoints);
  const equity = new MinMax();
  const drawdown = new MinMax();
  const daily: PlotPoint[] = [];
  const total: PlotPoint[] = [];
  const trailing: PlotPoint[] = [];

  // The floors as `eachFloorFromEquity` works them out: the daily one from the equity the day starts
  // with, the trailing one from the highest equity so far, the total one fixed.
  const c = floorsOwn ? undefined : result.challenge;
  const frac = (pct: Decimal | null | undefined): Decimal | null => (pct === null || pct === undefined ? null : new Dec(1).minus(pct.div(100)));
  const dailyFrac = frac(c?.maxDailyDrawdownPct);
  const totalFrac = frac(c?.maxTotalDrawdownPct);
  const trailingFrac = frac(c?.maxTrailingDrawdownPct);
  const initial = result.initialBalance;
  let dailyFloor = dailyFrac === null ? null : initial.times(dailyFrac);
  const totalFloor = totalFrac === null ? null : initial.times(totalFrac);
  let trailingFloor = trailingFrac === null ? null : initial.times(trailingFrac);
  // Numbers of the floors, worked out when a bucket keeps a value and the floor moved since.
  let dailyNum: number | undefined;
  let trailingNum: number | undefined;
  let dailyStale = true;
  let trailingStale = true;
  const totalNum = totalFloor?.toNumber();
  let maxRaw = c ? toFp9Raw(initial, 'exact', 'initialBalance') : 0n;
  let last: bigint | undefined;
  let currentDay: number | undefined;

  let peak = initial.toNumber();
  let i = 0;
  let t0 = 0;
  let t1 = 0;
  let dailyMid: number | undefined;
  let totalMid: number | undefined;
  let trailingMid: number | undefined;

  forEachEquityRaw(series, (time, raw) => {
    const at = i % k;
    const size = Math.min(k, n - (i - at));
    i += 1;
    const e = fp9Number(raw);
    // the drawdown hangs below zero so its bottom is the trough
    if (e > peak) peak = e;
    const dd = peak > 0 ? -((peak - e) / peak) * 100 : 0;
    if (c) {
      const day = Math.floor(time / DAY_MS) * DAY_MS;
      if (currentDay !== undefined && day !== currentDay && dailyFrac !== null) {
        dailyFloor = (last === undefined ? initial : fp9Decimal(last)).times(dailyFrac);
        dailyStale = true;
      }
      currentDay = day;
      if (raw > maxRaw) {
        maxRaw = raw;
        if (trailingFrac !== null) {
          trailingFloor = fp9Decimal(raw).times(trailingFrac);
          trailingStale = true;
        }
      }
      last = raw;
    }
    if (k === 1) {
      equity.out.push([time, e]);
      drawdown.out.push([time, dd]);
      if (c) pushFloors(time);
      return;
    }
    if (at === 0) t0 = time;
    if (at === 1) t1 = time;
    minMax(equity, at, e);
    minMax(drawdown, at, dd);
    if (size === 1) {
      // A last bucket of one sample: one point each, at its time.
      equity.out.push([t0, e]);
      drawdown.out.push([t0, dd]);
      if (c) pushFloors(time);
      return;
    }
    if (c && at === Math.floor(size / 2) - 1) {
      refreshFloors();
      dailyMid = dailyNum;
      totalMid = totalNum;
      trailingMid = trailingNum;
    }
    if (at < size - 1) return;
    closeMinMax(equity, t0, t1);
    closeMinMax(drawdown, t0, t1);
    if (c) {
      refreshFloors();
      pushStep(daily, t0, dailyMid, t1, dailyNum);
      pushStep(total, t0, totalMid, t1, totalNum);
      pushStep(trailing, t0, trailingMid, t1, trailingNum);
    }
  });
  return { equity: equity.out, drawdown: drawdown.out, daily, total, trailing };

  function refreshFloors(): void {
    if (dailyStale) {
      dailyNum = dailyFloor?.toNumber();
      dailyStale = false;
    }
    if (trailingStale) {
      trailingNum = trailingFloor?.toNumber();
      trailingStale = false;
    }
  }

  /** Every floor's value at `time`, as a point each (unbucketed samples). */
  function pushFloors(time: number): void {
    refreshFloors();
    pushPoint(daily, time, dailyNum);
    pushPoint(total, time, totalNum);
    pushPoint(trailing, time, trailingNum);
  }
}

function minMax(line: MinMax, at: number, v: number): void {
  if (at === 0) {
    line.lo = line.hi = v;
    line.loAt = line.hiAt = 0;
    return;
  }
  if (v < line.lo) {
    line.lo = v;
    line.loAt = at;
  }
  if (v > line.hi) {
    line.hi = v;
    line.hiAt = at;
  }
}

/** The bucket's two points, in the order its lowest and highest value came. */
function closeMinMax(line: MinMax, t0: number, t1: number): void {
  if (line.loAt <= line.hiAt) line.out.push([t0, line.lo], [t1, line.hi]);
  else line.out.push([t0, line.hi], [t1, line.lo]);
}

function pushStep(out: PlotPoint[], t0: number, mid: number | undefined, t1: number, end: number | undefined): void {
  pushPoint(out, t0, mid);
  pushPoint(out, t1, end);
}

/** Nothing drawn where a floor does not apply. */
function pushPoint(out: PlotPoint[], t: number, v: number | undefined): void {
  if (v !== undefined && !Number.isNaN(v)) out.push([t, v]);
}
