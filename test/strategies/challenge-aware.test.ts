import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { dec } from '../../src/core/decimal.js';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import { marketSnapshot, positionsSnapshot, riskSnapshot } from '../../src/feed/snapshots.js';
import type { Position } from '../../src/api/types.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { StrategyRunner } from '../../src/strategy/runner.js';
import { makeMarket, makeRisk, REPO_ROOT } from '../feed/fixtures.js';
import challengeAware, { drawdownFloors } from '../../strategies/challenge-aware.js';
import { runThroughEngine } from './harness.js';
import path from 'node:path';

const rules = { maxDailyDrawdownPercent: dec(5), maxTotalDrawdownPercent: dec(10), maxTrailingDrawdownPercent: undefined, initialBalance: undefined };

describe('strategies/challenge-aware.ts', () => {
  it('computes the drawdown floors and the headroom above the binding one', () => {
    // A good day behind it: the daily floor binds.
    const up = drawdownFloors(makeRisk('a', '104000', { dayStartEquity: dec(105000), payoutBaselineBalance: dec(100000) }), rules);
    expect(up.daily.toString()).toBe('99750');
    expect(up.total.toString()).toBe('90000');
    expect(up.floor.toString()).toBe('99750');
    expect(up.headroom.toString()).toBe('4250');
    // Deep in a loss: the total floor binds.
    const down = drawdownFloors(makeRisk('a', '92000', { dayStartEquity: dec(93000), payoutBaselineBalance: dec(100000) }), rules);
    expect(down.floor.toString()).toBe('90000');
    expect(down.headroom.toString()).toBe('2000');
    // A trailing rule binds above both once the account made new highs.
    const trailing = drawdownFloors(makeRisk('a', '110000', { dayStartEquity: dec(110000), maxEquity: dec(112000) }), {
      ...rules,
      maxTrailingDrawdownPercent: dec(3),
      initialBalance: dec(100000),
    });
    expect(trailing.trailing?.toString()).toBe('108640');
    expect(trailing.headroom.toString()).toBe('1360');
  });

  it('sizes its entries by the headroom on a challenge account in the engine', async () => {
    const run = await runThroughEngine({
      strategy: 'challenge-aware.ts',
      params: { period: '1h', fast: 5, slow: 15, atrPeriod: 14, headroomShare: '0.25', leverage: '5' },
      rows: 1440,
      accountType: 'real',
      initialBalance: '100000',
    });
    expect(run.status.state).toBe('running');
    expect(run.refused).toEqual([]);
    const opens = run.accepted.filter((a) => a.intent.kind === 'open');
    expect(opens.length).toBeGreaterThanOrEqual(2);
    // The first entry: headroom = 100000 − max(95000, 90000) = 5000; a quarter of it is 1.25% of equity.
    const first = opens[0]!.intent as Extract<OrderIntent, { kind: 'open' }>;
    expect(first.sizedBy).toMatchObject({ kind: 'risk', share: '0.0125', equity: '100000' });
    for (const { intent } of opens) {
      const s = (intent as Extract<OrderIntent, { kind: 'open' }>).sizedBy as unknown as { share: string; equity: string; lossAtStop: string };
      // Never more than a quarter of the headroom at the stop; the headroom is at most the equity above
      // the total floor (90000 on this account), whatever the daily floor.
      expect(dec(s.lossAtStop).lte(dec(s.equity).times(s.share))).toBe(true);
      expect(dec(s.lossAtStop).lte(dec(s.equity).minus(90000).times('0.25'))).toBe(true);
    }
    expect(run.engine.getAccount(run.accountId)!.status).not.toBe('failed');
  });

  it('flattens the account when the headroom is nearly gone, and stops opening below the minimum', async () => {
    const loaded = await loadStrategy(path.join(REPO_ROOT, 'strategies/challenge-aware.ts'), {
      params: { period: '1m', fast: 2, slow: 3, atrPeriod: 2, initialBalance: '100000' },
    });
    expect(loaded.strategy.name).toBe(challengeAware.name);
    const t0 = Date.UTC(2024, 0, 1);
    const prices = ['100', '101', '103', '102', '105', '107', '104', '108', '100', '95', '90', '99', '110', '120', '90', '130', '80'];
    /** Replay the prices on a ManualFeed with this equity and these positions; the intents it emits. */
    const drive = (equity: string, dayStart: string, positions: Position[]) => {
      const feed = new ManualFeed();
      const clock = new VirtualClock(t0);
      const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
      runner.add(loaded);
      const got: OrderIntent[] = [];
      runner.intents$.subscribe((i) => got.push(i));
      runner.start();
      feed.pushRisk(riskSnapshot(makeRisk('acc', equity, { dayStartEquity: dec(dayStart) }), t0));
      feed.pushPositions(positionsSnapshot('acc', 'BTC', positions, t0));
      prices.forEach((p, i) => {
        clock.set(t0 + i * 60_000);
        feed.pushMarket(marketSnapshot(makeMarket('BTC', p), t0 + i * 60_000));
      });
      return got;
    };
    // With room to spare the same prices produce entries (the sequence has crossovers).
    const healthy = drive('100000', '100000', []);
    expect(healthy.filter((i) => i.kind === 'open').length).toBeGreaterThan(0);
    // Equity 90 200 is 200 above the total floor (90 000): below the 0.3% flatten line, with a position held.
    const held = drive('90200', '90500', [{ direction: 'long', idx: 'p1' } as unknown as Position]);
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((i) => i.kind === 'close_all')).toBe(true);
    expect(held[0]).toMatchObject({ kind: 'close_all', scope: 'account', asset: '*' });
    // Flat with 800 of headroom, under the 1% minimum (1000): no entries at all.
    expect(drive('90800', '90800', [])).toEqual([]);
  });
});
