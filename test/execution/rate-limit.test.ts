import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { SlidingWindowGate } from '../../src/execution/rate-gate.js';
import { maxInWindow, openIntent, setup, START } from './helpers.js';

describe('SlidingWindowGate', () => {
  it('admits while every window has room and says how long to wait otherwise', () => {
    const clock = new VirtualClock(START);
    const g = new SlidingWindowGate([{ limit: 2, windowMs: 1_000 }, { limit: 3, windowMs: 10_000 }], clock);
    expect([g.tryTake(), g.tryTake()]).toEqual([0, 0]);
    expect(g.tryTake()).toBe(1_000);
    clock.advance(1_000);
    expect(g.tryTake()).toBe(0);
    // The 1s window has room again, the 10s window does not: wait until the first send leaves it.
    clock.advance(1_000);
    expect(g.tryTake()).toBe(8_000);
    g.blockUntil(clock.now() + 20_000);
    clock.advance(8_000);
    expect(g.tryTake()).toBe(12_000);
  });

  it('names the bad window setting', () => {
    const clock = new VirtualClock(0);
    expect(() => new SlidingWindowGate([{ limit: 0, windowMs: 1_000 }], clock, 'limits.write')).toThrow(/limits\.write\[0\]\.limit/);
    expect(() => new SlidingWindowGate([{ limit: 1, windowMs: -1 }], clock, 'limits.write')).toThrow(/limits\.write\[0\]\.windowMs/);
  });
});

describe('Executor: several rate-limit windows per bucket', () => {
  it('keeps writes under 3 per second AND 10 per minute, reads in their own bucket', async () => {
    const { exchange, executor } = setup({
      limits: {
        write: [
          { limit: 3, windowMs: 1_000 },
          { limit: 10, windowMs: 60_000 },
        ],
        read: [{ limit: 1, windowMs: 1_000 }],
      },
      maxQueueWaitMs: 3_600_000,
    });
    const states = await Promise.all(Array.from({ length: 25 }, () => executor.submit(openIntent())));
    expect(states.every((s) => s.status === 'done')).toBe(true);
    const times = exchange.callsOf('createOrder').map((c) => c.at);
    expect(times).toHaveLength(25);
    // Both windows bind: at most, and exactly, their limits.
    expect(maxInWindow(times, 1_000)).toBe(3);
    expect(maxInWindow(times, 60_000)).toBe(10);
    // The market lookup went through the read bucket once, not through the write budget.
    expect(exchange.callsOf('listMarkets')).toHaveLength(1);
  });
});
