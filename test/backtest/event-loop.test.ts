/**
 * A backtest of candle files replays synchronously, and still lets the event loop turn: a timer set
 * during the run (a progress bar's redraw, a signal handler's abort) runs before the run ends.
 */
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { LocalSession } from '../../src/runtime/local-session.js';
import { REPO } from './helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

/** The SMA crossover over the shipped hourly file: ~20,000 candles, long enough to stop midway. */
function hourlySession(): Promise<LocalSession> {
  return LocalSession.create({
    markets: [{ asset: 'BTC', file: COINBASE_BTC_1H }],
    strategies: [{ use: path.join(REPO, 'strategies/sma-cross.ts'), params: { asset: 'BTC', period: '1h' } }],
    balance: new Dec(100_000),
    cwd: REPO,
  });
}

describe('a synchronous replay', () => {
  it('lets a timer set during the run abort it midway', async () => {
    const session = await hourlySession();
    const controller = new AbortController();
    let scheduled = false;
    const stats = await session.run({
      signal: controller.signal,
      yieldMs: 0,
      afterStep: () => {
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => controller.abort());
        }
      },
    });
    await session.finish();
    expect(stats.aborted).toBe(true);
    // The abort landed at the first turn of the loop, 1,024 candles in, long before the file's end.
    expect(stats.candles).toBeGreaterThan(1_000);
    expect(stats.candles).toBeLessThan(1_100);
  });

  it('stops at once on a signal aborted before it starts, and leaves no listener on the signal', async () => {
    const session = await hourlySession();
    const controller = new AbortController();
    controller.abort();
    const stats = await session.run({ signal: controller.signal });
    await session.finish();
    expect(stats.aborted).toBe(true);
    expect(stats.ticks).toBe(0);
    // The run reads the signal through its abort event: the listener goes with the run.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
