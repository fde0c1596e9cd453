/**
 * The body of `propbot new strategy NAME`: a commented starting file that type-checks against
 * propbot's own types, and, in a folder that has none, the package.json and tsconfig.json that give
 * an editor completion and `tsc` a check without installing anything (the tsconfig maps 'propbot'
 * to the types of the propbot that wrote it). Nothing that exists is overwritten.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/package.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface NewStrategyResult {
  /** Files written, absolute. */
  readonly written: readonly string[];
  /** Files left as they were because they exist. */
  readonly kept: readonly string[];
}

export async function newStrategy(name: string, dir: string): Promise<NewStrategyResult> {
  if (!NAME.test(name)) throw new ConfigError('NAME', `expected 1-64 letters, digits, ".", "_" or "-" (a strategy name and its file name), got ${JSON.stringify(name)}`);
  const folder = path.resolve(dir);
  const file = path.join(folder, `${name}.ts`);
  if (existsSync(file)) throw new ConfigError('NAME', `${file} exists; pick another name or remove it`);
  await mkdir(folder, { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  await writeFile(file, strategyTemplate(name));
  written.push(file);
  for (const [base, text] of [
    ['package.json', packageJson(folder)],
    ['tsconfig.json', tsconfigJson()],
  ] as const) {
    const target = path.join(folder, base);
    if (existsSync(target)) {
      kept.push(target);
      continue;
    }
    await writeFile(target, text);
    written.push(target);
  }
  return { written, kept };
}

function packageJson(folder: string): string {
  const name = path.basename(folder).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '') || 'my-strategies';
  return `${JSON.stringify(
    {
      name,
      private: true,
      // Plugins are ES modules: `import`/`export`, as propbot loads them.
      type: 'module',
      scripts: { typecheck: 'tsc -p .' },
      devDependencies: { typescript: '~5.9.3' },
    },
    null,
    2,
  )}\n`;
}

function tsconfigJson(): string {
  const types = path.join(PACKAGE_ROOT, 'dist', 'index.d.ts');
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        noEmit: true,
        types: [],
        // The propbot that wrote this file; propbot itself resolves 'propbot' to the one running a plugin.
        paths: { propbot: [types] },
      },
      include: ['*.ts', '*.mts'],
    },
    null,
    2,
  )}\n`;
}

/** A first strategy on one screen, in the callback style; `strategies/sma-cross.ts` shows the stream style. */
export function strategyTemplate(name: string): string {
  return `/**
 * ${name}: long while the close is above its moving average, flat below it.
 *
 * A starting point: change the parameters and the rule in onCandle. Try it with
 *   propbot backtest --strategy ./${name}.ts --data BTC=coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv --log info
 * (a shipped dataset, found by its name from any folder; --log info shows the ctx.log lines below in
 * market time). Type-check it with \`npx tsc -p .\`
 * in this folder (after \`npm install\`) or, anywhere, \`npx -p typescript tsc -p .\`.
 */
import { defineStrategy, SMA, z, zDecimal } from 'propbot';

export default defineStrategy({
  name: '${name}',
  version: '0.1.0',
  description: 'Long while the close is above its simple moving average, flat below it.',
  // Parameters with defaults, checked before the run. Override them with --param length=50,
  // --params '{"period":"4h"}' or \`params:\` in a scenario file. \`propbot strategies --dir .\` lists
  // them with their defaults and what .describe() says.
  params: z.object({
    asset: z.string().min(1).default('BTC').describe('Base asset of the market traded.'),
    period: z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1D']).default('1h').describe("Candle period the rule runs on, at least the data's own period."),
    length: z.number().int().min(2).default(20).describe('Length of the moving average, in candles.'),
    // Money is a decimal string, never a float.
    amount: zDecimal({ positive: true }).prefault('1000').describe('Quote amount committed per entry (margin and fee).'),
  }),
  assets: (p) => [p.asset],
  // The history the rule needs before its first decision: a walk-forward replays it, untraded, before
  // each slice it trades.
  warmup: (p) => ({ candles: p.length, period: p.period }),

  // Called once per run. Return the stream of intents: ctx.onCandle calls the function below on every
  // completed candle and emits what it returns (nothing, one intent, or several). For more than one
  // candle stream or other inputs, build the stream yourself from ctx.candles() and ctx.feed.
  setup(ctx, p) {
    const average = new SMA(p.length);
    return ctx.onCandle(p.asset, p.period, (candle) => {
      const close = candle.close.toNumber(); // indicators work on numbers; orders keep decimals
      const mean = average.add(close);
      if (mean === null) return; // still warming up
      const long = ctx.latest.positions(p.asset)?.data.some((position) => position.direction === 'long') ?? false;
      if (!long && close > mean) {
        ctx.log.info({ close, mean }, 'close crossed above the average: buy');
        // The risk guard checks every intent before it reaches the exchange.
        return ctx.intents.openLong({ size: { quote: p.amount }, note: 'above average' });
      }
      if (long && close < mean) {
        ctx.log.info({ close, mean }, 'close fell below the average: sell');
        return ctx.intents.close({ direction: 'long', note: 'below average' });
      }
      return;
    });
  },
});
`;
}
