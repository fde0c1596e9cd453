/**
 * Property: random intents from a random strategy over the real 1-minute BTC crash of May 2021, sent
 * through the risk guard and the local engine, never make the engine fail the account by a drawdown
 * rule, except across a gap (a jump between candles) larger than the guard's configured adverse move;
 * such a failure is reported with the gap that caused it. The price path inside each candle is walked
 * in steps of at most 0.2% (the guard's assumed stop slippage), so stops fill where the market traded.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_RISK_GUARD_CONFIG } from '../../src/risk/index.js';
import { toRaw } from '../../src/risk/fixed.js';
import { BTC_CSV, runOverCandles, type PlanAction, type RunResult } from './crash-harness.js';

const STEP = 2_000_000n; // 0.2% in fp9
const ADVERSE = toRaw(DEFAULT_RISK_GUARD_CONFIG.drawdown.maxAdverseMove);
const SLIPPAGE = toRaw(DEFAULT_RISK_GUARD_CONFIG.drawdown.stopSlippage);
const MINUTES = 360;

const action: fc.Arbitrary<PlanAction> = fc.record({
  minute: fc.integer({ min: 0, max: MINUTES - 1 }),
  kind: fc.constantFrom<'open' | 'close'>('open', 'open', 'open', 'open', 'close'),
  direction: fc.constantFrom<'long' | 'short'>('long', 'short'),
  amountK: fc.integer({ min: 1, max: 90 }),
  // 6 is above the market's 5x: the guard must deny it
  leverage: fc.integer({ min: 1, max: 6 }),
  stopBp: fc.option(fc.integer({ min: 30, max: 900 }), { nil: undefined }),
});
const plan = fc.array(action, { minLength: 20, maxLength: 100 });

const totals = { runs: 0, approvedOpens: 0, constrained: 0, killSwitchTrips: 0, excused: [] as string[] };

function account(r: RunResult, from: number): void {
  totals.runs += 1;
  totals.approvedOpens += r.approvedOpens;
  totals.killSwitchTrips += r.killSwitchTrips;
  totals.constrained += Object.entries(r.denied)
    .filter(([code]) => code !== 'guard_halted')
    .reduce((s, [, n]) => s + n, 0);
  if (!r.failed) return;
  const p = r.failedAt!;
  const where = `${r.failureReason} at ${new Date(p.at).toISOString()} (window from ${new Date(from).toISOString()})`;
  // The only excuse: the price jumped between candles by more than the adverse move the guard assumes.
  expect(p.gap, `account failed on a traded path step of ${p.move} fp9, not a gap: ${where}`).toBe(true);
  expect(p.move > ADVERSE, `account failed on a gap of ${p.move} fp9, within the adverse move ${ADVERSE}: ${where}`).toBe(true);
  totals.excused.push(`${where}: gap of ${Number(p.move) / 1e7}%`);
}

describe.skipIf(!BTC_CSV)('guard + local engine over the May 2021 BTC crash (property)', () => {
  it('the step ratio of the path is within the stop slippage the guard assumes', () => {
    expect(STEP <= SLIPPAGE).toBe(true);
  });

  const windows = [
    Date.UTC(2021, 4, 18, 12),
    Date.UTC(2021, 4, 19, 0),
    Date.UTC(2021, 4, 19, 6),
    Date.UTC(2021, 4, 19, 12),
    Date.UTC(2021, 4, 19, 18),
  ];
  for (const from of windows) {
    it(`never fails the account by a drawdown rule: ${new Date(from).toISOString()} + 6 h`, async () => {
      await fc.assert(
        fc.asyncProperty(plan, async (p) => {
          account(await runOverCandles({ from, minutes: MINUTES, plan: p, stepRatio: STEP }), from);
        }),
        { seed: 20210519 + from / 3_600_000, numRuns: 3, endOnFailure: true },
      );
    });
  }

  it('was not vacuous: opens were approved, the guard constrained some, and any excused failure named its gap', () => {
    expect(totals.runs).toBe(15);
    expect(totals.approvedOpens).toBeGreaterThan(0);
    expect(totals.constrained + totals.killSwitchTrips).toBeGreaterThan(0);
    for (const e of totals.excused) console.info(`excused failure: ${e}`);
    console.info(`crash property: ${JSON.stringify({ ...totals, excused: totals.excused.length })}`);
  });

  it('the same kind of strategy without the guard fails the account in the crash', async () => {
    const aggressive: PlanAction[] = Array.from({ length: 30 }, (_, i) => ({
      minute: i * 11,
      kind: i % 5 === 4 ? 'close' : 'open',
      direction: i % 2 === 0 ? 'long' : 'short',
      amountK: 30,
      leverage: 5,
      stopBp: i % 3 === 0 ? undefined : 200,
    }));
    const r = await runOverCandles({ from: Date.UTC(2021, 4, 19, 12), minutes: MINUTES, plan: aggressive, stepRatio: STEP, unguarded: true });
    expect(r.failed).toBe(true);
    expect(r.failureReason).toMatch(/drawdown/);
    const guarded = await runOverCandles({ from: Date.UTC(2021, 4, 19, 12), minutes: MINUTES, plan: aggressive, stepRatio: STEP });
    expect(guarded.failed).toBe(false);
  });

  it('the kill switch is what saves an unprotected long in the crash', async () => {
    // 80 000 at 1x without a stop fits the entry check (5% adverse → 4 000 of the 5 000 daily allowance);
    // the crash then takes far more than 5%, and only flattening keeps the account alive.
    const lone: PlanAction[] = [{ minute: 0, kind: 'open', direction: 'long', amountK: 80, leverage: 1, stopBp: undefined }];
    const from = Date.UTC(2021, 4, 19, 12);
    const withSwitch = await runOverCandles({ from, minutes: MINUTES, plan: lone, stepRatio: STEP });
    expect(withSwitch.approvedOpens).toBe(1);
    expect(withSwitch.killSwitchTrips).toBe(1);
    expect(withSwitch.failed).toBe(false);
    const without = await runOverCandles({ from, minutes: MINUTES, plan: lone, stepRatio: STEP, guardConfig: { killSwitch: { enabled: false } } });
    expect(without.failed).toBe(true);
    expect(without.failedAt!.gap).toBe(false);
  });
});
