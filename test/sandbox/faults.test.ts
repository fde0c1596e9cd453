import { describe, expect, it } from 'vitest';
import { FaultInjector, NO_FAULTS, type FaultOptions } from '../../src/sandbox/faults.js';
import { SeededRandom } from '../../src/sandbox/prng.js';

const ON: FaultOptions = {
  enabled: true,
  seed: 'seed-1',
  serverErrors: { rate: 0.2, statuses: [500, 502, 503] },
  latency: { rate: 0.3, minMs: 5, maxMs: 50 },
  drop: { rate: 0.1, afterActShare: 0.5 },
  rateLimitStorm: { rate: 0.05, requests: 3, retryAfterMs: 2000 },
};

function run(options: FaultOptions, n: number) {
  const f = new FaultInjector(options);
  return Array.from({ length: n }, (_, i) => f.decide(i % 3 === 0 ? 'POST' : 'GET', '/orders', i % 3 === 0 ? 'write' : 'read'));
}

describe('SeededRandom', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = new SeededRandom('x');
    const b = new SeededRandom('x');
    const c = new SeededRandom('y');
    const sa = Array.from({ length: 20 }, () => a.nextUint32());
    expect(Array.from({ length: 20 }, () => b.nextUint32())).toEqual(sa);
    expect(Array.from({ length: 20 }, () => c.nextUint32())).not.toEqual(sa);
    const r = new SeededRandom(1);
    for (let i = 0; i < 1000; i += 1) {
      const v = r.nextInt(7);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(7);
    }
  });
});

describe('FaultInjector', () => {
  it('injects nothing when disabled', () => {
    expect(run(NO_FAULTS, 200).every((d) => d.action.kind === 'none' && d.delayMs === 0)).toBe(true);
    expect(run({ ...ON, enabled: false }, 200).every((d) => d.action.kind === 'none' && d.delayMs === 0)).toBe(true);
  });

  it('makes the same choices for the same seed, and others for another seed', () => {
    const a = run(ON, 500);
    expect(run(ON, 500)).toEqual(a);
    expect(run({ ...ON, seed: 'seed-2' }, 500)).not.toEqual(a);
    const kinds = new Set(a.map((d) => d.action.kind));
    for (const k of ['none', 'server_error', 'drop_before', 'storm']) expect(kinds.has(k as never)).toBe(true);
    expect(a.some((d) => d.delayMs >= 5 && d.delayMs <= 50)).toBe(true);
  });

  it('drops only writes after acting, and a storm answers the following requests too', () => {
    const a = run({ ...ON, drop: { rate: 0.5, afterActShare: 1 } }, 300);
    for (const d of a) if (d.action.kind === 'drop_after') expect(d.method).toBe('POST');
    expect(a.some((d) => d.action.kind === 'drop_after')).toBe(true);
    const storms = run({ ...NO_FAULTS, enabled: true, seed: 's', rateLimitStorm: { rate: 0.02, requests: 4, retryAfterMs: 1000 } }, 400);
    const first = storms.findIndex((d) => d.action.kind === 'storm');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(storms.slice(first, first + 4).every((d) => d.action.kind === 'storm')).toBe(true);
  });

  it('one kind of fault does not shift the choices of another', () => {
    const errorsOnly = run({ ...NO_FAULTS, enabled: true, seed: 'z', serverErrors: { rate: 0.3, statuses: [503] } }, 200);
    const withLatency = run({ ...NO_FAULTS, enabled: true, seed: 'z', serverErrors: { rate: 0.3, statuses: [503] }, latency: { rate: 0.5, minMs: 1, maxMs: 2 } }, 200);
    expect(withLatency.map((d) => d.action)).toEqual(errorsOnly.map((d) => d.action));
  });

  it('restarts the sequence when configured again', () => {
    const f = new FaultInjector(ON);
    const first = Array.from({ length: 50 }, () => f.decide('GET', '/x', 'read').action);
    f.configure(ON);
    expect(Array.from({ length: 50 }, () => f.decide('GET', '/x', 'read').action)).toEqual(first);
    expect(f.requests).toBe(50);
  });
});
