/**
 * When a sweep's default worker count adds a worker: the arithmetic of `anotherWorkerPays` on runs
 * shaped as the bench measured them (the shipped hourly scenario: a first run ~5× a warm one, and
 * most of the warm-up's CPU on V8's compiler thread).
 */
import { describe, expect, it } from 'vitest';
import { anotherWorkerPays, MIN_SAMPLES, type RunSample } from '../../src/runtime/sweep-growth.js';

const wall = [420, 205, 145, 125, 100, 92, 85, 80];
const cpu = [900, 420, 260, 200, 140, 120, 110, 105];
const hourly: RunSample[] = wall.map((w, i) => ({ wallMs: w, cpuMs: cpu[i]! }));

describe('another sweep worker pays', () => {
  it('not for the rest of a 24-run grid on 2 cores: its warm-up costs more than it takes off', () => {
    // 16 runs left alone: 1,280 ms; shared: the CPU bound (16 × 105 + 1,415) / 2 = 1,547 ms.
    expect(anotherWorkerPays(hourly, 16, 1, 2)).toBe(false);
  });

  it('for the rest of a 96-run grid on 2 cores, and not on 1 core', () => {
    // 88 runs: 7,040 ms alone against max(3,826, 5,327) with two.
    expect(anotherWorkerPays(hourly, 88, 1, 2)).toBe(true);
    expect(anotherWorkerPays(hourly, 88, 1, 1)).toBe(false);
  });

  it('a third worker on 8 cores only while the runs left still repay one more warm-up', () => {
    expect(anotherWorkerPays(hourly, 88, 2, 8)).toBe(true);
    expect(anotherWorkerPays(hourly, 10, 2, 8)).toBe(false);
  });

  it('decides nothing before it has seen enough runs, or with no more runs left than workers', () => {
    expect(anotherWorkerPays(hourly.slice(0, MIN_SAMPLES - 1), 500, 1, 8)).toBe(false);
    expect(anotherWorkerPays(hourly, 1, 1, 8)).toBe(false);
  });
});
