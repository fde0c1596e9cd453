/**
 * Strategy plugins in the user's own folders, outside the repository, run by `bin/propbot.js` as a real
 * child process: each checks from the inside that the 'propbot' it imports is the very one running it
 * (one module graph: the clock it is handed is an instance of the VirtualClock it imported) and that
 * zod, decimal.js, RxJS and pino are the copies propbot uses, even beside a propbot and a decimal.js
 * installed in the plugin's own node_modules.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from '../backtest/helpers.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');

/** A plugin that writes what it sees to `out` on its first candle; `typed` adds TypeScript-only syntax. */
function plugin(name: string, typed: boolean): string {
  const t = (annotation: string) => (typed ? annotation : '');
  return `import { writeFileSync } from 'node:fs';
import { defineStrategy, rx, z, Dec, VirtualClock } from 'propbot';
import * as zod from 'zod';
import { Decimal } from 'decimal.js';
import { Observable } from 'rxjs';
import { pino } from 'pino';

export default defineStrategy({
  name: '${name}',
  version: '1.0.0',
  assets: ['ORCL'],
  params: z.object({ out: z.string() }),
  setup(ctx, p) {
    const candles${t(': Observable<unknown>')} = ctx.candles('ORCL', '1D');
    return ctx.candles('ORCL', '1D').pipe(
      rx.take(1),
      rx.mergeMap((candle) => {
        const seen${t(': Record<string, unknown>')} = {
          clock: ctx.clock instanceof VirtualClock,
          zod: zod.z === z,
          decimal: candle.close instanceof Decimal && Object.getPrototypeOf(candle.close) === Object.getPrototypeOf(new Dec(1)),
          rxjs: candles instanceof Observable,
          pino: ctx.log[pino.symbols.streamSym] !== undefined,
          propbot: import.meta.resolve('propbot'),
        };
        writeFileSync(p.out, JSON.stringify(seen));
        return [];
      }),
    );
  },
});
`;
}

describe('strategy plugins from any folder', () => {
  it('load .ts, .mts, .js and .mjs plugins into the one module graph of the propbot that runs them', async () => {
    const root = tempDir('pb-plugins-');
    // No package.json at all.
    const bare = path.join(root, 'bare');
    mkdirSync(bare);
    writeFileSync(path.join(bare, 'plain.ts'), plugin('plain-ts', true));
    writeFileSync(path.join(bare, 'module.mts'), plugin('module-mts', true));
    // A package.json that says "module".
    const typed = path.join(root, 'typed');
    mkdirSync(typed);
    writeFileSync(path.join(typed, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(typed, 'typed.js'), plugin('typed-js', false));
    // A package.json without "type", and a propbot and a decimal.js of its own in node_modules: the
    // propbot here is not the one running, and loading it at all would fail the run.
    const installed = path.join(root, 'installed');
    mkdirSync(path.join(installed, 'node_modules/propbot'), { recursive: true });
    writeFileSync(path.join(installed, 'package.json'), '{ "name": "my-strategies", "private": true }\n');
    writeFileSync(path.join(installed, 'node_modules/propbot/package.json'), '{ "name": "propbot", "version": "0.0.1", "type": "module", "exports": "./index.js" }\n');
    writeFileSync(path.join(installed, 'node_modules/propbot/index.js'), "throw new Error('a second propbot was loaded');\n");
    cpSync(path.join(REPO, 'node_modules/decimal.js'), path.join(installed, 'node_modules/decimal.js'), { recursive: true });
    writeFileSync(path.join(installed, 'loose.mjs'), plugin('loose-mjs', false));
    writeFileSync(path.join(installed, 'untyped.js'), plugin('untyped-js', false));

    const plugins = [
      ['bare/plain.ts', 'plain-ts'],
      ['bare/module.mts', 'module-mts'],
      ['typed/typed.js', 'typed-js'],
      ['installed/loose.mjs', 'loose-mjs'],
      ['installed/untyped.js', 'untyped-js'],
    ] as const;
    const scenario = path.join(root, 'scenario.yaml');
    writeFileSync(
      scenario,
      [
        'strategies:',
        ...plugins.flatMap(([file, name]) => [`  - use: ./${file}`, `    params: { out: ./${name}.json }`]),
        'data:',
        `  - { asset: ORCL, file: ${JSON.stringify(ORCL)} }`,
        'out: ./out',
      ].join('\n'),
    );
    const r = await propbot(['backtest', scenario, '--json'], root);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const running = pathToFileURL(path.join(REPO, 'dist/index.js')).href;
    for (const [, name] of plugins) {
      const seen = JSON.parse(readFileSync(path.join(root, `${name}.json`), 'utf8'));
      expect({ name, ...seen }).toEqual({ name, clock: true, zod: true, decimal: true, rxjs: true, pino: true, propbot: running });
    }
  });

  it('a copy of a shipped example in another folder runs on paper to the end of its data', async () => {
    const dir = tempDir('pb-paper-');
    cpSync(path.join(REPO, 'strategies/sma-cross.ts'), path.join(dir, 'my-sma.ts'));
    writeFileSync(
      path.join(dir, 'paper.yaml'),
      [
        'mode: paper',
        'paper:',
        `  markets: [{ asset: ORCL, file: ${JSON.stringify(ORCL)} }]`,
        '  speed: 0',
        'strategies:',
        "  - use: ./my-sma.ts",
        "    params: { asset: ORCL, period: 1D, fast: 5, slow: 20, leverage: '1' }",
        `store: { file: ${JSON.stringify(path.join(dir, 'paper.db'))} }`,
        'status: { port: 0 }',
        'log: { level: info, format: json }',
      ].join('\n'),
    );
    const r = await propbot(['run', '--config', path.join(dir, 'paper.yaml')], dir);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; strategy?: string });
    expect(lines.some((l) => l.strategy === 'sma-cross' && l.msg.startsWith('fast average crossed'))).toBe(true);
    expect(lines.filter((l) => l.msg === 'request createOrder ok').length).toBeGreaterThan(0);
  });

  it('a plugin edited between two runs runs as edited, and the same text in another folder names its own file', async () => {
    const root = tempDir('pb-edited-');
    const source = (name: string, line: string) =>
      `import { defineStrategy } from 'propbot';\nconst n: number = 1;\n${line}\nexport default defineStrategy({ name: '${name}', version: '1.0.0', assets: ['ORCL'], setup: () => null });\n`;
    const names = async (dir: string) => {
      const r = await propbot(['strategies', '--dir', dir, '--json'], dir);
      return (JSON.parse(r.stdout) as Array<{ shipped: boolean; name?: string; error?: string }>).filter((s) => !s.shipped).map((s) => s.name ?? s.error);
    };
    const a = path.join(root, 'a');
    mkdirSync(a);
    writeFileSync(path.join(a, 'p.ts'), source('first', '// one'));
    expect(await names(a)).toEqual(['first']);
    writeFileSync(path.join(a, 'p.ts'), source('other', '// two'));
    expect(await names(a)).toEqual(['other']);
    // A throw on line 3, in two folders: each error names the file that threw.
    const thrower = source('never', "if (n === 1) throw new Error('no');");
    const b = path.join(root, 'b');
    mkdirSync(b);
    writeFileSync(path.join(a, 'p.ts'), thrower);
    writeFileSync(path.join(b, 'p.ts'), thrower);
    for (const dir of [a, b, a]) {
      const r = await propbot(['backtest', '--strategy', './p.ts', '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out')], dir);
      expect(r.stderr.trim()).toBe(`propbot: --strategy: ${path.join(dir, 'p.ts')}: failed to load: no (${path.join(dir, 'p.ts')}:3:20)`);
    }
  });

  it("a name propbot does not export: the plugin's line that imports it, and the nearest name propbot exports", async () => {
    const dir = tempDir('pb-missing-export-');
    const file = path.join(dir, 'p.ts');
    writeFileSync(
      file,
      "import {\n  defineStrategy,\n  SMAA,\n} from 'propbot';\n\nexport default defineStrategy({ name: 'p', version: '1.0.0', assets: ['ORCL'], setup: () => { new SMAA(3); return null; } });\n",
    );
    const r = await propbot(['backtest', '--strategy', './p.ts', '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`propbot: --strategy: ${file}:3: 'propbot' has no export named "SMAA"; did you mean "SMA"?`);
  });
});
