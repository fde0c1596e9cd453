import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/sandbox/rate-limiter.js';

const limits = {
  read: [
    { limit: 3, windowMs: 1000, label: '1s' },
    { limit: 5, windowMs: 60_000, label: '60s' },
  ],
  write: [{ limit: 1, windowMs: 1000, label: '1s' }],
};

describe('RateLimiter', () => {
  it('admits up to each window and names the window that trips, with when to return', () => {
    const rl = new RateLimiter(limits);
    expect(rl.take('k', 'read', 0)).toBeNull();
    expect(rl.take('k', 'read', 100)).toBeNull();
    expect(rl.take('k', 'read', 200)).toBeNull();
    expect(rl.take('k', 'read', 300)).toEqual({ bucket: 'read', window: '1s', limit: 3, retryAtMs: 1000 });
    // Refused requests are not counted: at 1000 the first one left the 1 s window.
    expect(rl.take('k', 'read', 1000)).toBeNull();
    expect(rl.take('k', 'read', 1100)).toBeNull();
    // 5 admitted in the minute: the 60 s window trips and returns when the first admitted one leaves it.
    expect(rl.take('k', 'read', 2500)).toEqual({ bucket: 'read', window: '60s', limit: 5, retryAtMs: 60_000 });
    expect(rl.take('k', 'read', 60_000)).toBeNull();
  });

  it('keeps read and write buckets and keys apart', () => {
    const rl = new RateLimiter(limits);
    expect(rl.take('k', 'write', 0)).toBeNull();
    expect(rl.take('k', 'write', 10)?.bucket).toBe('write');
    expect(rl.take('k', 'read', 10)).toBeNull();
    expect(rl.take('other', 'write', 10)).toBeNull();
    rl.reset();
    expect(rl.take('k', 'write', 20)).toBeNull();
  });

  it('admits everything when a bucket has no windows', () => {
    const rl = new RateLimiter({ read: [], write: [] });
    for (let i = 0; i < 100; i += 1) expect(rl.take('k', 'read', 0)).toBeNull();
  });
});
