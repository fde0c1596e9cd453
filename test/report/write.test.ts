/**
 * report.json as written (its equity series streamed in) is the very text JSON.stringify gives for the
 * report object, whatever the length of the series, and the returned summary is that report without it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { buildReportJson, writeReport, type BacktestResult } from '../../src/report/index.js';
import { Fp9EquitySample } from '../../src/report/equity-sample.js';
import { btcResult } from './fixture.js';

const dir = mkdtempSync(path.join(tmpdir(), 'propbot-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function written(result: BacktestResult, name: string): Promise<{ text: string; summary: object }> {
  const out = await writeReport(result, path.join(dir, name));
  return { text: readFileSync(out.json, 'utf8'), summary: out.report };
}

describe('writeReport', () => {
  it('writes report.json byte for byte as JSON.stringify(buildReportJson(result), null, 2)', async () => {
    const result = await btcResult(600);
    expect(result.equity.length).toBeGreaterThan(100);
    const { text, summary } = await written(result, 'run');
    const expected = JSON.stringify(buildReportJson(result), null, 2) + '\n';
    expect(text).toBe(expected);
    const { equity: _e, ...rest } = buildReportJson(result);
    expect(summary).toEqual(rest);
  });

  it('streams series longer than one chunk, and an empty one, in the same layout', async () => {
    const base = await btcResult(200);
    // 4,501 samples cross the writer's chunks of 2,000; equity values of every shape (integers, 9 places, large).
    const long: BacktestResult = {
      ...base,
      equity: Array.from({ length: 4_501 }, (_, i) => new Fp9EquitySample(base.startTime + i * 60_000, 100_000_000_000_000n + BigInt(i * 7_919) * 1_000_003n)),
    };
    const huge: BacktestResult = { ...base, equity: [{ time: base.startTime, equity: new Dec('123456789012.123456789') }] };
    const empty: BacktestResult = { ...base, equity: [] };
    for (const [name, r] of [['long', long], ['huge', huge], ['empty', empty]] as const) {
      const { text } = await written(r, name);
      expect(text).toBe(JSON.stringify(buildReportJson(r), null, 2) + '\n');
    }
  });
});

describe('Fp9EquitySample', () => {
  it('reads, serialises and compares like the plain sample it stands for', () => {
    const s = new Fp9EquitySample(1_700_000_000_000, 100_123_456_789_012n);
    expect(s.equity.toString()).toBe('100123.456789012');
    expect(s.raw).toBe(100_123_456_789_012n);
    expect(JSON.stringify(s)).toBe(JSON.stringify({ time: 1_700_000_000_000, equity: new Dec('100123.456789012') }));
    // Beyond 2^53 fp9 units the integer is kept as a bigint, still exact.
    const big = new Fp9EquitySample(0, 12_345_678_901_234_567_891n);
    expect(big.equity.toString()).toBe('12345678901.234567891');
  });
});
