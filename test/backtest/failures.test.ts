/**
 * What a new user sees when a backtest cannot run or its strategy breaks: `propbot backtest` as a real
 * child process, from a folder outside the repository.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from './helpers.js';

describe('propbot backtest: a data file that is not there', () => {
  it('the shipped May 2021 scenario says, before it starts, which file it needs and where to get it', async () => {
    // Copied away from the checkout, its ../shared path leads nowhere, as on a fresh clone.
    const dir = tempDir();
    const scenario = path.join(dir, 'may-2021-crash.yaml');
    copyFileSync(path.join(REPO, 'backtest/may-2021-crash.yaml'), scenario);
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${scenario}: data.0.file: data file not found: ${path.resolve(dir, '../../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv')}`);
    expect(r.stderr).toContain('https://github.com/tooyipjee/freqtrade');
    expect(r.stderr).toContain('BTC_USDT-1m.json');
  });

  it('a scenario without a source still names the key and the file', async () => {
    const dir = tempDir();
    const scenario = path.join(dir, 's.yaml');
    writeFileSync(scenario, 'strategy:\n  use: sma-cross\ndata:\n  - asset: BTC\n    file: ./missing.csv\n');
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`propbot: ${scenario}: data.0.file: data file not found: ${path.join(dir, 'missing.csv')}`);
  });
});
