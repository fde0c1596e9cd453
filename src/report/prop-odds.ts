/**
 * What a prop trader asks of a run beyond its return: had I started the challenge on any day of this
 * period, how often would I have passed, how fast, and how close did a day come to the daily floor?
 *
 * Rolling starts: every UTC day of the run is the first day of one simulated attempt. The attempt's
 * account is the run's equity path rebased to the initial balance at that day's start (the strategy's
 * trades do not depend on when the challenge began; a strategy that sizes by the account's headroom is
 * only approximated). Each day of the attempt, with the phase's rules of the engine (ENGINE-MODEL, "Days,
 * periods and the challenge rules"):
 * - it fails when the day's lowest equity is under the daily floor (day-start equity × (1 − daily%)),
 *   the total floor (initial × (1 − total%)) or the trailing floor (highest equity so far, the day's
 *   own high included, × (1 − trailing%)): the order inside a day is unknown, so the worse case is taken;
 * - a day whose equity grew by `profitableDayPct` of the initial balance is a profitable day;
 * - it passes on the first day whose high reaches the target once the profitable days are enough, and
 *   a failure on that same day wins;
 * - an attempt the data ends before it passes or fails counts as not passed.
 * A phase without a target (funded) "passes" an attempt that never fails until the data ends.
 *
 * These are frequencies over simulated starts, computed on equity ratios in floating point; no money
 * figure comes out of them. The worst daily headroom is exact (Decimal) on the run's own samples.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { fp9Decimal } from '../core/fp9.js';
import { equityTally } from './equity-sample.js';
import type { BacktestResult } from './types.js';

const DAY_MS = 86_400_000;

export interface PropOdds {
  /** Passed attempts over all attempts (0..1); null without challenge rules or without a day. */
  readonly passProbability: number | null;
  readonly attempts: number;
  readonly passed: number;
  readonly failed: number;
  /** Median days from the start of a passing attempt to its pass (the start day being day 1). */
  readonly medianDaysToPass: number | null;
  /**
   * Least headroom left to the daily floor on any day of the run, percent of that day's allowance:
   * 100 = the day never dipped under its start, 0 = it touched the floor, below 0 = it broke it.
   */
  readonly worstDailyHeadroomPct: Decimal | null;
  /** The UTC day (`YYYY-MM-DD`) of that worst headroom. */
  readonly worstDailyHeadroomDay: string | null;
}

interface Day {
  readonly day: number;
  readonly start: Decimal;
  readonly low: Decimal;
  readonly high: Decimal;
  readonly close: Decimal;
}

/** Day-start, low, high and close equity of every UTC day with samples (scanned as fp9 integers). */
function dailyRanges(result: BacktestResult): Day[] {
  return equityTally(result.equity, result.initialBalance).days.days.map((d) => ({ day: d.day, start: fp9Decimal(d.start), low: fp9Decimal(d.low), high: fp9Decimal(d.high), close: fp9Decimal(d.close) }));
}

export function computePropOdds(result: BacktestResult): PropOdds {
  const c = result.challenge;
  const days = dailyRanges(result);
  let worst: Decimal | null = null;
  let worstDay: string | null = null;
  if (c?.maxDailyDrawdownPct != null && c.maxDailyDrawdownPct.gt(0)) {
    for (const d of days) {
      if (!d.start.gt(0)) continue;
      const allowance = d.start.times(c.maxDailyDrawdownPct).div(100);
      const headroom = d.low.minus(d.start.minus(allowance)).div(allowance).times(100);
      const capped = headroom.gt(100) ? new Dec(100) : headroom;
      if (worst === null || capped.lt(worst)) {
        worst = capped;
        worstDay = new Date(d.day * DAY_MS).toISOString().slice(0, 10);
      }
    }
  }
  if (!c || days.length === 0) {
    return { passProbability: null, attempts: 0, passed: 0, failed: 0, medianDaysToPass: null, worstDailyHeadroomPct: worst, worstDailyHeadroomDay: worstDay };
  }
  const frac = (pct: Decimal | null): number | null => (pct === null ? null : pct.toNumber() / 100);
  const daily = frac(c.maxDailyDrawdownPct);
  const total = frac(c.maxTotalDrawdownPct);
  const trailing = frac(c.maxTrailingDrawdownPct);
  const target = frac(c.profitTargetPct);
  const profitable = c.profitableDayPct.toNumber() / 100;
  const minDays = c.minProfitableDays ?? 0;
  // Ratios to the run's initial balance; each attempt rebases them to its own start.
  const initial = result.initialBalance;
  const r = days.map((d) => ({
    start: d.start.div(initial).toNumber(),
    low: d.low.div(initial).toNumber(),
    high: d.high.div(initial).toNumber(),
    close: d.close.div(initial).toNumber(),
  }));
  const { passed, failed, toPass } = rollingStarts(r, { daily, total, trailing, target, profitable, minDays });
  toPass.sort((a, b) => a - b);
  const median = toPass.length === 0 ? null : toPass.length % 2 === 1 ? toPass[(toPass.length - 1) / 2]! : (toPass[toPass.length / 2 - 1]! + toPass[toPass.length / 2]!) / 2;
  return {
    passProbability: r.length > 0 ? passed / r.length : null,
    attempts: r.length,
    passed,
    failed,
    medianDaysToPass: median,
    worstDailyHeadroomPct: worst,
    worstDailyHeadroomDay: worstDay,
  };
}

interface DayRatios {
  readonly start: number;
  readonly low: number;
  readonly high: number;
  readonly close: number;
}

interface OddsLimits {
  readonly daily: number | null;
  readonly total: number | null;
  readonly trailing: number | null;
  readonly target: number | null;
  readonly profitable: number;
  readonly minDays: number;
}

/**
 * An attempt from each day of the run to its end. A function of its own: V8 compiles this loop while
 * it runs (on-stack replacement), and code after it in the same function, not yet run when the loop
 * was compiled, threw that compiled code away at the first run of the rest; a sweep calls it once a
 * run, so each run compiled the loop again.
 */
function rollingStarts(r: readonly DayRatios[], limits: OddsLimits): { passed: number; failed: number; toPass: number[] } {
  const { daily, total, trailing, target, profitable, minDays } = limits;
  let passed = 0;
  let failed = 0;
  const toPass: number[] = [];
  for (let first = 0; first < r.length; first += 1) {
    const k = 1 / r[first]!.start;
    if (!Number.isFinite(k) || k <= 0) continue;
    let peak = 1;
    let good = 0;
    let outcome: 'pass' | 'fail' | null = null;
    for (let j = first; j < r.length && outcome === null; j += 1) {
      const start = r[j]!.start * k;
      const low = r[j]!.low * k;
      const high = r[j]!.high * k;
      peak = Math.max(peak, high);
      if ((daily !== null && low < start * (1 - daily)) || (total !== null && low < 1 - total) || (trailing !== null && low < peak * (1 - trailing))) {
        outcome = 'fail';
        break;
      }
      if (r[j]!.close * k - start >= profitable) good += 1;
      if (target !== null && high >= 1 + target && good >= minDays) {
        outcome = 'pass';
        toPass.push(j - first + 1);
      }
    }
    if (outcome === 'pass' || (outcome === null && target === null)) passed += 1;
    else if (outcome === 'fail') failed += 1;
  }
  return { passed, failed, toPass };
}
