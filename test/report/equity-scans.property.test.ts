/**
 * The report's scans of the equity series against the definitions, sample by sample in Decimals:
 * maximum drawdown (running peak from the initial balance, the first deepest kept), daily pnl and the
 * floors, on the columns a backtest keeps (scanned, or tallied as they grew) and on a plain array alike.
 */
import fc from 'fast-check';
import type { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Dec, ZERO } from '../../src/core/decimal.js';
import { fp9Decimal } from '../../src/core/fp9.js';
import { firstAtOrAbove, Fp9EquitySeries, tallyOf } from '../../src/report/equity-sample.js';
import { dailyPnlFromEquity, maxDrawdown, utcDay } from '../../src/report/metrics.js';
import type { EquitySample } from '../../src/report/types.js';

const T0 = Date.UTC(2024, 0, 1);
const INITIAL = new Dec('100000');

/** Samples a few hours apart, equity moving in fp9 steps and often back onto an earlier value (ties). */
const series = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 6 * 3_600_000 }), fc.oneof(fc.bigInt({ min: -3_000_000_000_000n, max: 3_000_000_000_000n }), fc.constantFrom(0n, 1n, -1n))), { maxLength: 200 })
  .map((steps) => {
    let t = T0;
    let raw = 100_000_000_000_000n;
    const out: Array<{ time: number; raw: bigint }> = [];
    for (const [gap, move] of steps) {
      t += gap;
      raw = raw + move > 0n ? raw + move : raw;
      out.push({ time: t, raw });
    }
    return out;
  });

/** The series three ways: columns scanned, columns that kept a tally as they grew, a plain array. */
function both(samples: ReadonlyArray<{ time: number; raw: bigint }>): [Fp9EquitySeries, Fp9EquitySeries, EquitySample[]] {
  const columns = new Fp9EquitySeries();
  const tallied = new Fp9EquitySeries(100_000_000_000_000n);
  for (const s of samples) {
    columns.push(s.time, s.raw);
    tallied.push(s.time, s.raw);
  }
  expect(tallyOf(tallied, INITIAL)).toBeDefined();
  expect(tallyOf(tallied, new Dec('100000.5'))).toBeUndefined();
  expect(tallyOf(columns, INITIAL)).toBeUndefined();
  return [columns, tallied, samples.map((s) => ({ time: s.time, equity: fp9Decimal(s.raw) }))];
}

function naiveDrawdown(samples: ReadonlyArray<{ time: number; raw: bigint }>): { pct: Decimal; amount: Decimal; peakAt: number | null; troughAt: number | null } {
  let peak = INITIAL;
  let peakAt: number | null = null;
  let best = { pct: ZERO, amount: ZERO, peakAt: null as number | null, troughAt: null as number | null };
  for (const s of samples) {
    const e = fp9Decimal(s.raw);
    if (e.gt(peak)) {
      peak = e;
      peakAt = s.time;
      continue;
    }
    const amount = peak.minus(e);
    const pct = amount.div(peak).times(100);
    if (pct.gt(best.pct)) best = { pct, amount, peakAt, troughAt: s.time };
  }
  return best;
}

const show = (d: { pct: Decimal; amount: Decimal; peakAt: number | null; troughAt: number | null }) => ({ pct: d.pct.toString(), amount: d.amount.toString(), peakAt: d.peakAt, troughAt: d.troughAt });

describe('equity scans', () => {
  it('maxDrawdown is the definition worked out at every sample, the first deepest kept', () => {
    fc.assert(
      fc.property(series, (samples) => {
        const want = show(naiveDrawdown(samples));
        for (const s of both(samples)) expect(show(maxDrawdown(INITIAL, s))).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('the first sample at or above a level is found on every representation', () => {
    fc.assert(
      fc.property(series, fc.bigInt({ min: 99_000_000_000_000n, max: 104_000_000_000_000n }), fc.option(fc.nat(), { nil: undefined, freq: 2 }), (samples, level, pick) => {
        // Often exactly one sample's equity: a day whose high is the level itself reaches it.
        const least = pick !== undefined && samples.length > 0 ? samples[pick % samples.length]!.raw : level;
        const want = samples.find((s) => s.raw >= least)?.time ?? null;
        for (const s of both(samples)) expect(firstAtOrAbove(s, INITIAL, least)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('daily pnl runs from the previous day’s last sample (the initial balance first)', () => {
    fc.assert(
      fc.property(series, (samples) => {
        const want: Array<{ day: string; start: string; end: string }> = [];
        let start = INITIAL;
        for (let i = 0; i < samples.length; i++) {
          const day = Math.floor(samples[i]!.time / 86_400_000);
          const next = samples[i + 1];
          if (next !== undefined && Math.floor(next.time / 86_400_000) === day) continue;
          const end = fp9Decimal(samples[i]!.raw);
          want.push({ day: utcDay(samples[i]!.time), start: start.toString(), end: end.toString() });
          start = end;
        }
        for (const s of both(samples)) {
          const got = dailyPnlFromEquity(INITIAL, s).map((d) => ({ day: d.day, start: d.startEquity.toString(), end: d.endEquity.toString(), pnl: d.pnl.toString() }));
          expect(got).toEqual(want.map((w) => ({ ...w, pnl: new Dec(w.end).minus(w.start).toString() })));
        }
      }),
      { numRuns: 200 },
    );
  });
});
