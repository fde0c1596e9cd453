/**
 * report.json as written (its equity series streamed in) is the very text JSON.stringify gives for the
 * report object, whatever the length of the series, and the returned summary is that report without it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { buildReportJson, writeReport, type BacktestResult } from '../../src/report/index.js';
import { Fp9EquitySample, Fp9EquitySeries } from '../../src/report/equity-sample.js';
import { JsonBytes, writeEquityEntries } from '../../src/report/equity-json.js';
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

describe('writeEquityEntries', () => {
  it('writes the entries JSON.stringify gives, for every time and fp9 equity', () => {
    const time = fc.oneof(
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(0, -0, 10, 1e12, 1e15, 9, 999_999_999_999, -60_000, 1.5, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY),
    );
    const raw = fc.oneof(
      fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
      // whole amounts and amounts with trailing zeros in their 9 places
      fc.bigInt({ min: -9_000_000n, max: 9_000_000n }).map((v) => v * 1_000_000_000n),
      fc.bigInt({ min: -9_000_000_000n, max: 9_000_000_000n }).map((v) => v * 1_000n),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).chain((v) => fc.constantFrom(v, -v)),
      // a whole part of exactly a power of ten, and one just under
      fc.constantFrom(10_000_000_000n, 100_000_000_000n, 1_000_000_000_000_000n, 9_999_999_999n, 1n, -1_000_000_000n),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(time, raw), { minLength: 1, maxLength: 40 }), fc.nat(), (samples, cut) => {
        const series = new Fp9EquitySeries();
        for (const [t, r] of samples) series.push(t, r);
        const plain = samples.map(([t, r]) => new Fp9EquitySample(t, r));
        const text = JSON.stringify({ equity: plain }, null, 2);
        const expected = text.slice(text.indexOf('[\n') + 2, text.lastIndexOf('\n  ]'));
        // In two pieces, as the writer's chunks are: the caller joins them with a separator.
        const at = cut % samples.length;
        const out = new JsonBytes(16);
        writeEquityEntries(out, series, 0, at);
        const first = out.bytes().toString('latin1');
        out.reset();
        writeEquityEntries(out, series, at, samples.length);
        const rest = out.bytes().toString('latin1');
        expect(at === 0 ? rest : `${first},\n${rest}`).toBe(expected);
      }),
      { numRuns: 300 },
    );
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
