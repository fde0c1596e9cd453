/**
 * The equity chart's lines of the HTML page (equity, drawdown and the three floors the challenge
 * sets) in one pass over the run's equity samples, thinned on the buckets `MinMaxLine` (equity,
 * drawdown) and `StepLine` (floors) use: the same points those give, fed sample by sample.
 *
 * Why not those classes: a report is written once per run, so this code stays mostly interpreted,
 * and a month of minutes is 43,000 samples. Five line objects and the floors' callbacks cost about
 * seventeen calls a sample (~35 ms a month); here it is one loop over the buckets, whose rules are
 * those classes' own (`minMaxAdd`, `minMaxClose`, `pushStepPoint`), the floors' rules are the
 * report's (`EquityFloors`, one call a sample), and a floor becomes a number only at the samples a
 * bucket keeps.
 */
import type { Decimal } from 'decimal.js';
import { fp9Number } from '../core/fp9.js';
import { bucketSize, MinMax, minMaxAdd, minMaxClose, pushStepPoint, type PlotPoint } from './downsample.js';
import { forEachEquityRaw } from './equity-sample.js';
import { EquityFloors } from './metrics.js';
import type { BacktestResult } from './types.js';

export interface EquityChartLines {
  readonly equity: PlotPoint[];
  readonly drawdown: PlotPoint[];
  /** Empty when the run has no challenge, or when the result carries its own floors (see `floorsOwn`). */
  readonly daily: PlotPoint[];
  readonly total: PlotPoint[];
  readonly trailing: PlotPoint[];
}

/**
 * The lines of `result`'s equity chart, at most about `maxPoints` points each. With `floorsOwn` the
 * floor lines are left empty (the caller draws the floors the result carries).
 */
export function equityChartLines(result: BacktestResult, maxPoints: number, floorsOwn = false): EquityChartLines {
  const series = result.equity;
  const n = series.length;
  const k = bucketSize(n, maxPoints);
  const equity: PlotPoint[] = [];
  const drawdown: PlotPoint[] = [];
  const equityBucket = new MinMax();
  const drawdownBucket = new MinMax();
  const daily: PlotPoint[] = [];
  const total: PlotPoint[] = [];
  const trailing: PlotPoint[] = [];

  const initial = result.initialBalance;
  const c = floorsOwn ? undefined : result.challenge;
  const floors = c ? new EquityFloors(c, initial) : undefined;
  // A floor's number, worked out when a bucket keeps a value and the floor (a new Decimal) moved since.
  let dailyDec: Decimal | null | undefined;
  let trailingDec: Decimal | null | undefined;
  let dailyNum: number | undefined;
  let trailingNum: number | undefined;
  const totalNum = floors?.total?.toNumber();

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
    floors?.add(time, raw);
    if (k === 1) {
      equity.push([time, e]);
      drawdown.push([time, dd]);
      if (floors) pushFloors(time);
      return;
    }
    if (at === 0) t0 = time;
    if (at === 1) t1 = time;
    minMaxAdd(equityBucket, at, e);
    minMaxAdd(drawdownBucket, at, dd);
    if (size === 1) {
      // A last bucket of one sample: one point each, at its time.
      equity.push([t0, e]);
      drawdown.push([t0, dd]);
      if (floors) pushFloors(time);
      return;
    }
    if (floors && at === Math.floor(size / 2) - 1) {
      refreshFloors();
      dailyMid = dailyNum;
      totalMid = totalNum;
      trailingMid = trailingNum;
    }
    if (at < size - 1) return;
    minMaxClose(equityBucket, t0, t1, equity);
    minMaxClose(drawdownBucket, t0, t1, drawdown);
    if (floors) {
      refreshFloors();
      pushStep(daily, t0, dailyMid, t1, dailyNum);
      pushStep(total, t0, totalMid, t1, totalNum);
      pushStep(trailing, t0, trailingMid, t1, trailingNum);
    }
  });
  return { equity, drawdown, daily, total, trailing };

  function refreshFloors(): void {
    if (floors!.daily !== dailyDec) {
      dailyDec = floors!.daily;
      dailyNum = dailyDec?.toNumber();
    }
    if (floors!.trailing !== trailingDec) {
      trailingDec = floors!.trailing;
      trailingNum = trailingDec?.toNumber();
    }
  }

  /** Every floor's value at `time`, as a point each (unbucketed samples). */
  function pushFloors(time: number): void {
    refreshFloors();
    pushStepPoint(daily, time, dailyNum);
    pushStepPoint(total, time, totalNum);
    pushStepPoint(trailing, time, trailingNum);
  }
}

function pushStep(out: PlotPoint[], t0: number, mid: number | undefined, t1: number, end: number | undefined): void {
  pushStepPoint(out, t0, mid);
  pushStepPoint(out, t1, end);
}
