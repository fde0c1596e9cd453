/**
 * The strategies docs/strategies.md shows whole (a TypeScript block with `export default
 * defineStrategy`) type-check in a folder `propbot new strategy` set up, as a reader's copy would,
 * and backtest on shipped data: a change to the API that the page does not follow fails here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseRunConfig, RunConfigSchema } from '../../src/runtime/run-config.js';
import { loadScenario } from '../../src/runtime/scenario.js';
import { propbot, REPO, tempDir, tsc } from '../backtest/helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');

/** The text of every ```LANG block of a page. */
function blocks(file: string, lang: string): string[] {
  const text = readFileSync(path.join(REPO, file), 'utf8');
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** The page's ```ts blocks that are whole strategy files. */
function wholeStrategies(file: string): string[] {
  return blocks(file, 'ts').filter((code) => code.includes('export default defineStrategy('));
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

describe('the configuration the docs show', () => {
  // Each block is a part of a file: a run config's (its keys are the run config's) or a scenario's.
  const runKeys = new Set(Object.keys(RunConfigSchema.shape));
  const pages = ['README.md', 'docs/cockpit.md', 'docs/research.md', 'docs/strategies.md'];
  const yamlBlocks = pages.flatMap((page) => blocks(page, 'yaml').map((text, i) => ({ where: `${page} yaml block ${i + 1}`, text })));

  it('every YAML block is accepted by the schema of the file it belongs in', () => {
    expect(yamlBlocks.length).toBeGreaterThanOrEqual(4);
    const dir = tempDir('pb-docs-yaml-');
    for (const { where, text } of yamlBlocks) {
      const keys = Object.keys(parse(text) as object);
      if (keys.every((k) => runKeys.has(k))) {
        const base = `mode: paper\npaper:\n  markets:\n    - { asset: BTC, file: ${JSON.stringify(COINBASE_BTC_1H)} }\n${keys.includes('strategies') ? '' : 'strategies:\n  - use: sma-cross\n'}`;
        expect(() => parseRunConfig(`${base}${text}`, dir, where, {}), where).not.toThrow();
      } else {
        const file = path.join(dir, 'scenario.yaml');
        writeFileSync(file, `strategy: { use: sma-cross }\ndata:\n  - { asset: BTC, file: ${JSON.stringify(COINBASE_BTC_1H)} }\n${text}`);
        expect(() => loadScenario(file), where).not.toThrow();
      }
    }
  });
});
