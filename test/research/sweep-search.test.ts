import { describe, expect, it } from 'vitest';
import { runSweepJob } from '../../src/runtime/sweep-job.js';
import { pruneFloors } from '../../src/research/search.js';
import type { SweepJob, SweepRow } from '../../src/runtime/sweep.js';
import { tempDir } from '../backtest/helpers.js';
import { BTC, propbot, smaJob } from './cli.js';

const FROM = Date.UTC(2018, 2, 1);
const TO = Date.UTC(2018, 2, 11);

const job = (over: Partial<SweepJob> = {}): SweepJob => smaJob(FROM, TO, over);

describe('optimizer trials', () => {
  it('a trial under the floor at a checkpoint is stopped there; one over every floor runs to its end', async () => {
    const checkpoints = [FROM + 2.5 * 86_400_000, FROM + 5 * 86_400_000, FROM + 7.5 * 86_400_000];
    const full = await runSweepJob(job({ prune: { checkpoints, minReturnPct: [null, null, null] } }));
    expect(full.ok).toBe(true);
    expect(full.stopped).toBeUndefined();
    expect(full.checkpoints).toHaveLength(3);
    // a floor just above what this very run had at the second checkpoint
    const floor = full.checkpoints![1]! + 0.001;
    const cut = await runSweepJob(job({ prune: { checkpoints, minReturnPct: [null, floor, null] } }));
    expect(cut.stopped?.reason).toBe('pruned');
    expect(cut.stopped!.at).toBeGreaterThanOrEqual(checkpoints[1]!);
    expect(cut.stopped!.at).toBeLessThan(checkpoints[2]!);
    expect(cut.checkpoints).toEqual(full.checkpoints!.slice(0, 2));
  }, 120_000);

  it('sets prune floors at the 25th percentile of finished trials, only once ten have finished', () => {
    const finished = (n: number): SweepRow[] => Array.from({ length: n }, (_, i) => ({ index: i, params: {}, ok: true, checkpoints: [i, 10 * i] }));
    expect(pruneFloors(finished(9), 2)).toEqual([null, null]);
    // returns 0..11 at the first checkpoint: the 25th percentile is the value at position ⌊0.25 × 11⌋ = 2
    expect(pruneFloors(finished(12), 2)).toEqual([2, 20]);
    // a stopped trial does not set the bar
    expect(pruneFloors([...finished(9), { index: 9, params: {}, ok: true, checkpoints: [-5, -50], stopped: { at: 0, reason: 'pruned' } }], 2)).toEqual([null, null]);
  });
});

describe('propbot sweep --optimizer tpe', () => {
  it('runs the same trials in the same order for a seed, whatever the number of worker threads', async () => {
    const args = [
      'sweep', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h","amount":"15000","leverage":"3"}',
      '--from', '2018-03-01', '--to', '2018-03-08', '--grid', 'fast=2..12', '--grid', 'slow=15..40:5',
      '--optimizer', 'tpe', '--trials', '6', '--batch', '2', '--seed', '5', '--objective', 'sharpe', '--json',
    ];
    const one = await propbot([...args, '--workers', '1', '--out', tempDir('pb-tpe-')]);
    const two = await propbot([...args, '--workers', '2', '--out', tempDir('pb-tpe-')]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    const a = JSON.parse(one.stdout);
    const b = JSON.parse(two.stdout);
    expect(a.method).toBe('tpe');
    expect(a.trials).toHaveLength(6);
    expect(b.trials).toEqual(a.trials);
    expect(new Set(a.trials.map((t: { params: unknown }) => JSON.stringify(t.params))).size).toBe(6);
    // ranked by the objective, best first
    const values = a.ranked.map((r: { summary: { sharpe: string | null } }) => r.summary.sharpe).filter((v: string | null) => v !== null).map(Number);
    expect(values).toEqual([...values].sort((x, y) => y - x));
    expect(a.best.params).toEqual(a.ranked[0].params);
  }, 300_000);
});
