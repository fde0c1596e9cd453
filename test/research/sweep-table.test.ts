/** The sweep's console table: the objective first, then the figures every table shows, each once. */
import { describe, expect, it } from 'vitest';
import { table } from '../../src/cli/sweep-run.js';
import type { SweepRow } from '../../src/runtime/sweep.js';

const row = (index: number, returnPct: string, sharpe: string): SweepRow => ({
  index,
  params: { fast: index },
  ok: true,
  summary: { returnPct, sharpe, maxDrawdownPct: '1.5', totalTrades: 12 },
  challenge: { passed: false, failedRule: null, daysToTarget: null },
});
const rows = [row(5, '2.5', '1.1'), row(10, '1.25', '0.4')];
const header = (text: string) => text.split('\n')[0]!.split(/\s{2,}/);

describe('propbot sweep: the table', () => {
  it('shows return % as the objective once when the objective is returnPct', () => {
    const text = table(rows, 'returnPct');
    expect(header(text)).toEqual(['rank', 'params', 'returnPct', 'max dd %', 'trades', 'challenge']);
    expect(text.split('\n')[1]!.split(/\s{2,}/)).toEqual(['1', 'fast=5', '2.5', '1.5', '12', 'not passed']);
  });

  it('keeps return % beside another objective, and drops max dd % when it is the objective', () => {
    expect(header(table(rows, 'sharpe'))).toEqual(['rank', 'params', 'sharpe', 'return %', 'max dd %', 'trades', 'challenge']);
    expect(header(table(rows, 'maxDrawdownPct'))).toEqual(['rank', 'params', 'maxDrawdownPct', 'return %', 'trades', 'challenge']);
  });
});
