import { describe, expect, it } from 'vitest';
import { runThroughEngine } from './harness.js';

describe('strategies/mean-reversion.ts through the engine', () => {
  it('fades band breaks with RSI confirmation and takes profit at the middle band', async () => {
    const run = await runThroughEngine({
      strategy: 'mean-reversion.ts',
      params: { period: '1h', bands: 20, deviations: 2, rsiPeriod: 14, oversold: 30, overbought: 70, amount: '1000', leverage: '2' },
      rows: 1440,
    });
    expect(run.status.state).toBe('running');
    expect(run.refused).toEqual([]);
    const opens = run.accepted.filter((a) => a.intent.kind === 'open');
    expect(opens.length).toBeGreaterThanOrEqual(2);
    for (const { intent, order } of opens) {
      if (intent.kind !== 'open') continue;
      expect(order.takeTriggerPrice.gt(0)).toBe(true);
      expect(order.stopTriggerPrice.gt(0)).toBe(true);
      // Long below the mean: the take-profit is above the entry; short mirrored.
      const fill = order.indexPrice!;
      expect(intent.direction === 'long' ? intent.takeProfit!.gt(fill) : intent.takeProfit!.lt(fill)).toBe(true);
    }
    // Positions ended: by the strategy's close at the middle band, or the attached take/stop firing.
    const exits = run.executed.filter((o) => o.type === 'take' || o.type === 'stop');
    expect(exits.length).toBeGreaterThanOrEqual(1);
  });
});
