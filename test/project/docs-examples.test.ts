/**
 * The strategies docs/strategies.md shows whole (a TypeScript block with `export default
 * defineStrategy`) type-check in a folder `propbot new strategy` set up, as a reader's copy would,
 * and backtest on shipped data: a change to the API that the page does not follow fails here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir, tsc } from '../backtest/helpers.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');

/** The page's ```ts blocks that are whole strategy files. */
function wholeStrategies(file: string): string[] {
  const text = readFileSync(path.join(REPO, file), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes('export default defineStrategy('));
}

describe('docs/strategies.md', () => {
  it('its whole strategy files type-check against propbot and trade on shipped data', async () => {
    const blocks = wholeStrategies('docs/strategies.md');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const dir = tempDir('pb-docs-');
    const made = await propbot(['new', 'strategy', 'scaffold', '--dir', dir]);
    expect(made.code, made.stderr).toBe(0);
    const files = blocks.map((code, i) => {
      const file = path.join(dir, `doc-${i + 1}.ts`);
      writeFileSync(file, code);
      return file;
    });
    expect(await tsc(dir)).toEqual({ code: 0, output: '' });
    for (const file of files) {
      const r = await propbot(['backtest', '--strategy', file, '--data', `ORCL=${ORCL}`, '--param', 'asset=ORCL', '--param', 'period=1D', '--json', '--out', path.join(dir, 'out', path.basename(file))], dir);
      expect(r.code, `${path.basename(file)}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).summary.totalFills, path.basename(file)).toBeGreaterThan(0);
    }
  }, 180_000);
});
