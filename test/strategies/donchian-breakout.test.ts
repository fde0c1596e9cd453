import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { runThroughEngine } from './harness.js';

describe('strategies/donchian-breakout.ts through the engine', () => {
  it('enters breakouts with ATR stops sized by risk, and the engine fills them', async () => {
    const run = await runThroughEngine({
      strategy: 'donchian-breakout.ts',
      params: { period: '1h', channel: 20, exitChannel: 10, atrPeriod: 14, atrMultiplier: '2', risk: '0.005', leverage: '5' },
      rows: 1440,
    });
    expect(run.status.state).toBe('running');
    expect(run.refused).toEqual([]);
    const opens = run.accepted.filter((a) => a.intent.kind === 'open');
    expect(opens.length).toBeGreaterThanOrEqual(1);
    for (const { intent, order } of opens) {
      if (intent.kind !== 'open') continue;
      expect(intent.sizedBy).toMatchObject({ kind: 'risk', share: '0.005' });
      const sized = intent.sizedBy as unknown as { entry: string; stop: string; lossAtStop: string; equity: string; amount: string };
      // The stop is the ATR distance away, on the losing side; the loss there is the risk budget (or less when capped).
      expect(intent.direction === 'long' ? dec(sized.stop).lt(sized.entry) : dec(sized.stop).gt(sized.entry)).toBe(true);
      expect(dec(sized.lossAtStop).lte(dec(sized.equity).times('0.005'))).toBe(true);
      expect(order.amount.eq(sized.amount)).toBe(true);
      expect(order.stopTriggerPrice.gt(0)).toBe(true);
    }
    expect(run.executed.some((o) => o.type === 'market')).toBe(true);
  });
});
