/**
 * The live cross-check: each risk snapshot's equity against the guard's own derivation (balance +
 * the positions marked at the index prices read around that snapshot).
 */
import { describe, expect, it } from 'vitest';
import type { EquityDivergence, GuardLogger } from '../../src/risk/index.js';
import { ACCOUNT, D, market, marketSnap, position, positionsSnap, riskSnap, riskStatus, setup, T0 } from './builders.js';

/** A long of 0.1 BTC entered at 50000 (notional 5000), on a 100000 balance. */
function guardWithLong(logger?: GuardLogger) {
  const long = position({ idx: 'p1', size: D('0.1'), notional: D(5000) });
  const { guard, clock } = setup({ positions: [long], risk: riskStatus({ currentBalance: D(100000), currentEquity: D(100000) }), ...(logger ? { logger } : {}) });
  const seen: EquityDivergence[] = [];
  guard.divergence$.subscribe((d) => seen.push(d));
  const price = (p: number, at: number) => guard.observeMarket(marketSnap(market({ state: { indexPrice: D(p) } }), at));
  // A risk read is followed by a positions read of the same moment, as the pollers and the replay give them.
  const risk = (equity: number, at: number) => {
    guard.observeRisk(riskSnap(riskStatus({ currentBalance: D(100000), currentEquity: D(equity) }), at));
    guard.observePositions(positionsSnap([long], 'BTC', at));
  };
  return { guard, clock, seen, price, risk, long };
}

describe('guard equity against each risk snapshot', () => {
  it('agrees when the platform priced the snapshot anywhere between the market reads around it', () => {
    const g = guardWithLong();
    g.price(51_000, T0 + 1_000);
    g.risk(100_150, T0 + 2_000); // 51500: between the read before (51000) and the read after (52000)
    g.price(52_000, T0 + 3_000);
    g.risk(100_200, T0 + 4_000);
    g.price(52_000, T0 + 4_000); // the same instant, as a replay publishes: an exact check
    expect(g.seen).toEqual([]);
  });

  it('waits for a price read at or after the risk read, then reports a figure outside the bounds', () => {
    const g = guardWithLong();
    g.price(51_000, T0 + 1_000);
    g.risk(100_300, T0 + 2_000); // 53000 would be needed; nothing read after it yet
    expect(g.seen).toEqual([]);
    g.price(52_000, T0 + 3_000);
    expect(g.seen).toHaveLength(1);
    const d = g.seen[0]!;
    expect(d.accountId).toBe(ACCOUNT);
    expect(d.at).toBe(T0 + 2_000);
    expect(d.platform.toString()).toBe('100300');
    expect(d.guardLow.toString()).toBe('100100');
    expect(d.guardHigh.toString()).toBe('100200');
    expect(d.difference.toString()).toBe('100');
    // Reported once per snapshot.
    g.price(52_000, T0 + 3_500);
    expect(g.seen).toHaveLength(1);
  });

  it('is logged as an error where the logger has one, else as a warning', () => {
    const logged: Array<[string, string]> = [];
    const at = (level: string) => (obj: object, msg: string) => {
      if ((obj as { event?: string }).event === 'guard_divergence') logged.push([level, msg]);
    };
    const full: GuardLogger = { info: at('info'), warn: at('warn'), debug: at('debug'), error: at('error') };
    const g = guardWithLong(full);
    g.price(51_000, T0 + 1_000);
    g.risk(100_300, T0 + 2_000);
    g.price(52_000, T0 + 3_000);
    expect(logged).toEqual([['error', "risk guard: equity 100300 of the risk status differs from the guard's 100100…100200 by 100"]]);
    logged.length = 0;
    const noError: GuardLogger = { info: at('info'), warn: at('warn'), debug: at('debug') };
    const h = guardWithLong(noError);
    h.risk(100_300, T0 + 2_000);
    h.price(52_000, T0 + 3_000);
    expect(logged.map(([level]) => level)).toEqual(['warn']);
  });

  it('one fp9 unit is tolerated, two are not', () => {
    const g = guardWithLong();
    g.risk(100_000.000000001, T0);
    g.price(50_000, T0);
    expect(g.seen).toEqual([]);
    g.risk(99_999.999999998, T0 + 1);
    g.price(50_000, T0 + 1);
    expect(g.seen.map((d) => d.difference.toString())).toEqual(['-0.000000002']);
  });

  it('does not compare while a fill is half seen (positions changed after the risk read)', () => {
    const g = guardWithLong();
    g.guard.observePositions(positionsSnap([], 'BTC', T0 + 1_000)); // closed; the balance will move
    g.price(50_000, T0 + 1_000);
    expect(g.seen).toEqual([]);
    // The next risk read has the realised pnl in the balance: balance and positions agree again.
    g.guard.observeRisk(riskSnap(riskStatus({ currentBalance: D(100_050), currentEquity: D(100_050) }), T0 + 2_000));
    g.guard.observePositions(positionsSnap([], 'BTC', T0 + 2_000));
    g.price(50_500, T0 + 2_000);
    expect(g.seen).toEqual([]);
    expect(g.guard.accountView(ACCOUNT)!.equity.toString()).toBe('100050');
  });

  it('waits for a positions read after the risk read: a position opened at zero cost moves no balance', () => {
    const { guard } = setup({ positions: [], risk: riskStatus({ currentBalance: D(100000), currentEquity: D(100000) }) });
    const seen: EquityDivergence[] = [];
    guard.divergence$.subscribe((d) => seen.push(d));
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(50_000) } }), T0 + 1_000));
    // The risk read already holds a long opened at 50000.00000001 (its pnl at 50000: −2 fp9 units).
    guard.observeRisk(riskSnap(riskStatus({ currentBalance: D(100000), currentEquity: D('99999.999999998') }), T0 + 2_000));
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(50_000) } }), T0 + 2_000));
    expect(seen).toEqual([]);
    const opened = position({ idx: 'p2', size: D('0.1'), notional: D('5000.000000002') });
    guard.observePositions(positionsSnap([opened], 'BTC', T0 + 2_000));
    expect(seen).toEqual([]);
    // A figure the positions cannot explain is still reported once they are known.
    guard.observeRisk(riskSnap(riskStatus({ currentBalance: D(100000), currentEquity: D('99999.9') }), T0 + 3_000));
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(50_000) } }), T0 + 3_000));
    guard.observePositions(positionsSnap([opened], 'BTC', T0 + 3_000));
    expect(seen.map((d) => d.difference.toString())).toEqual(['-0.099999998']);
  });
});
