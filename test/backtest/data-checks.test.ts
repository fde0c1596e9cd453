/**
 * What `propbot backtest` says about its data, as a real child process: bad rows with their line
 * numbers and reasons in the console, in `--json` and in report.json; the timestamp unit; weekends of
 * a stock market as session breaks, not gaps; a 1e40 price refused instead of a 2e41 drawdown; and a
 * strategy period finer than the data's refused before it trades on nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from './helpers.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');
const PARAMS = '{"asset":"ORCL","period":"1D","fast":5,"slow":20,"leverage":"1","allowShort":false}';

/** The shipped ORCL file with two bad rows put in: a price of 1e40 (line 12) and a word for a price (line 31). */
function orclWithBadRows(dir: string): string {
  const lines = readFileSync(ORCL, 'utf8').split('\n');
  const at = (n: number) => lines[n - 1]!.split(',');
  const huge = at(12);
  lines[11] = [huge[0], '1e40', '1e40', '1e40', '1e40', huge[5]].join(',');
  const word = at(31);
  lines[30] = [word[0], word[1], 'high', word[3], word[4], word[5]].join(',');
  const file = path.join(dir, 'orcl-bad.csv');
  writeFileSync(file, lines.join('\n'));
  return file;
}

describe('propbot backtest reports its data', () => {
  it('bad rows: line numbers and reasons in --json, report.json and the console; the 1e40 price never reaches the engine', async () => {
    const dir = tempDir();
    const file = orclWithBadRows(dir);
    const out = path.join(dir, 'out');
    const args = ['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${file}`, '--preset', 'zero-cost', '--params', PARAMS, '--out', out];
    const r = await propbot([...args, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    const data = json.data[0];
    expect(data).toMatchObject({ market: 'ORCL', file, timeUnit: 'ms', periodMs: 86_400_000, badRows: 2, rows: 246 });
    expect(data.badRowSamples).toEqual([
      { line: 12, reason: 'price', message: 'open "1e40" is above the largest fp9 price 9223372036.854775807' },
      { line: 31, reason: 'price', message: 'high "high" is not a positive decimal' },
    ]);
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).data).toEqual(json.data);
    expect(Number(json.summary.maxDrawdownPct)).toBeLessThan(100);

    const console = await propbot(args);
    expect(console.code).toBe(0);
    expect(console.stdout).toMatch(/data ORCL\s+246 rows of 1D, times in epoch ms; 2 bad rows skipped/);
    expect(console.stdout).toContain('line 12: price: open "1e40" is above the largest fp9 price');
    expect(console.stdout).toContain('line 31: price: high "high" is not a positive decimal');
  });

  it('a stock market\'s weekends are session breaks by its own calendar, not 55 gaps', async () => {
    const out = tempDir();
    const r = await propbot(['backtest', 'backtest/zero-cost-orcl-2001.yaml', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout).data[0];
    expect(data).toMatchObject({ gaps: 9, missingPeriods: 24, sessionBreaks: 46 });
    expect(data.gapSamples[0]).toEqual({ after: '2001-01-12T00:00:00.000Z', next: '2001-01-16T00:00:00.000Z', missingPeriods: 3, line: 11 });
  });

  it('a strategy period finer than the data\'s candles is refused, naming both periods', async () => {
    const out = tempDir();
    const r = await propbot(['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL}`, '--params', PARAMS.replace('"1D"', '"1h"'), '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sma-cross asks for 1h candles of ORCL');
    expect(r.stderr).toContain('holds 1D candles');
  });
});
