import { describe, expect, it } from 'vitest';
import { runThroughEngine } from './harness.js';

describe('strategies/sma-cross.ts through the engine', () => {
  it('turns crossovers on two months of real BTC hourly data into orders the engine fills', async () => {
    const run = await runThroughEngine({
      strategy: 'sma-cross.ts',
      params: { period: '1h', fast: 5, slow: 20, amount: '2000', leverage: '2', stopPercent: '0.02' },
      rows: 1440,
    });
    expect(run.status.state).toBe('running');
    expect(run.refused).toEqual([]);
    const opens = run.accepted.filter((a) => a.intent.kind === 'open');
    const closes = run.accepted.filter((a) => a.intent.kind === 'close');
    expect(opens.length).toBeGreaterThanOrEqual(3);
    expect(closes.length).toBeGreaterThanOrEqual(2);
    // Each entry was a market order that executed at once, with its stop attached.
    for (const { order } of opens) {
      expect(order.type).toBe('market');
      expect(order.stopTriggerPrice.gt(0)).toBe(true);
    }
    expect(run.executed.filter((o) => o.type === 'market').length).toBe(opens.length);
    // Always in the market after the first cross: it alternates long and short.
    const dirs = opens.map((a) => (a.intent.kind === 'open' ? a.intent.direction : ''));
    for (let i = 1; i < dirs.length; i += 1) expect(dirs[i]).not.toBe(dirs[i - 1]);
    expect(run.engine.riskStatus(run.accountId)!.currentEquity.eq(100000)).toBe(false);
  });
});
