import fc from 'fast-check';
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
    // A window of no length would limit nothing.
    expect(() => new SlidingWindowGate([{ limit: 1, windowMs: 1_000 }, { limit: 1, windowMs: 0 }], clock, 'limits.read')).toThrow(
      'limits.read[1].windowMs: expected a positive number of ms, got 0',
    );
    expect(new SlidingWindowGate([{ limit: 1, windowMs: 250 }], clock).windows[0]!.label).toBe('250ms');
  });

  it('takes a slot at the very millisecond a block ends, and counts it', () => {
    const clock = new VirtualClock(START);
    const g = new SlidingWindowGate([{ limit: 1, windowMs: 1_000 }], clock);
    g.blockUntil(START + 500);
    expect(g.tryTake()).toBe(500);
    clock.set(START + 500);
    expect(g.tryTake()).toBe(0);
    expect(g.tryTake()).toBe(1_000);
  });

  it('against a count of every send: never more than a limit in any window, and no longer a wait than the windows need', () => {
    const windows = fc.uniqueArray(fc.record({ limit: fc.integer({ min: 1, max: 4 }), windowMs: fc.integer({ min: 1, max: 50 }) }), {
      minLength: 1,
      maxLength: 3,
      selector: (w) => w.windowMs,
    });
    const steps = fc.array(fc.oneof(fc.integer({ min: 0, max: 30 }).map((advance) => ({ advance, block: 0 })), fc.integer({ min: 1, max: 60 }).map((block) => ({ advance: 0, block }))), {
      minLength: 1,
      maxLength: 120,
    });
    fc.assert(
      fc.property(windows, steps, (specs, script) => {
        const clock = new VirtualClock(1_000);
        const g = new SlidingWindowGate(specs, clock);
        const sent: number[] = [];
        let blockedUntil = 0;
        /** Sends a window ending at `t` holds: those in (t - windowMs, t]. */
        const inWindow = (t: number, windowMs: number) => sent.filter((s) => s > t - windowMs && s <= t).length;
        const free = (t: number) => t >= blockedUntil && specs.every((w) => inWindow(t, w.windowMs) < w.limit);
        for (const { advance, block } of script) {
          clock.advance(advance);
          if (block > 0) {
            blockedUntil = Math.max(blockedUntil, clock.now() + block);
            g.blockUntil(clock.now() + block);
          }
          const now = clock.now();
          const wait = g.tryTake();
          if (wait === 0) {
            expect(free(now)).toBe(true);
            sent.push(now);
          } else if (now < blockedUntil) {
            // A 429's block is waited out first; the windows are asked again when it ends.
            expect(wait).toBe(blockedUntil - now);
          } else {
            // The first moment every window has room: no sooner, and no later.
            expect(Number.isInteger(wait) && wait > 0).toBe(true);
            let first = now + 1;
            while (!free(first)) first += 1;
            expect(now + wait).toBe(first);
          }
        }
        for (const w of specs) for (const s of sent) expect(inWindow(s, w.windowMs)).toBeLessThanOrEqual(w.limit);
      }),
      { numRuns: 300, seed: 12 },
    );
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
