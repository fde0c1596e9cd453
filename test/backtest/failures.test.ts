/**
 * What a new user sees when a backtest cannot run or its strategy breaks: `propbot backtest` as a real
 * child process, from a folder outside the repository.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from './helpers.js';

const SHIPPED = 'the shipped datasets, found by name from any folder: coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv, pyalgotrade-orcl-2001-daily.csv';

/** A scenario file `s.yaml` in `dir` (a new folder outside the checkout unless given). */
function scenarioIn(text: string, dir = tempDir()): { dir: string; scenario: string } {
  const scenario = path.join(dir, 's.yaml');
  writeFileSync(scenario, text);
  return { dir, scenario };
}

describe('propbot backtest: a data file that is not there', () => {
  it('the shipped May 2021 scenario says, before it starts, which file it needs and where to get it', async () => {
    // Copied away from the checkout, its ../shared path leads nowhere, as on a fresh clone.
    const dir = tempDir();
    const scenario = path.join(dir, 'may-2021-crash.yaml');
    copyFileSync(path.join(REPO, 'backtest/may-2021-crash.yaml'), scenario);
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${scenario}:line 13: data.0.file: data file not found: ${path.resolve(dir, '../../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv')}`);
    expect(r.stderr).toContain('https://github.com/tooyipjee/freqtrade');
    expect(r.stderr).toContain('BTC_USDT-1m.json');
  });

  it('a scenario without a source still names the key and the file', async () => {
    const { dir, scenario } = scenarioIn('strategy:\n  use: sma-cross\ndata:\n  - asset: BTC\n    file: ./missing.csv\n');
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`propbot: ${scenario}:line 5: data.0.file: data file not found: ${path.join(dir, 'missing.csv')}; ${SHIPPED}`);
  });

  it('--data names the flag and the shipped datasets, and a shipped dataset is found by its name from any folder', async () => {
    const dir = tempDir();
    const missing = await propbot(['backtest', '--strategy', 'sma-cross', '--data', 'BTC=candles.csv'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim()).toBe(`propbot: --data: data file not found: ${path.join(dir, 'candles.csv')}; ${SHIPPED}`);
    const byName = await propbot(['backtest', '--strategy', 'sma-cross', '--data', 'BTC=coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv',
      '--param', 'period=1h', '--from', '2019-01-01', '--out', path.join(dir, 'out'), '--json'], dir);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout).summary.totalTrades).toBeGreaterThan(0);
  });
});

describe('propbot backtest: a strategy or a range that is not there', () => {
  it("a scenario's strategy name that is no example, file or package: strategy.use, its line, and the nearest example", async () => {
    const { dir, scenario } = scenarioIn(`strategy:\n  use: mean-reverson\ndata:\n  - asset: BTC\n    file: ${JSON.stringify(path.join(REPO, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv'))}\n`);
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `propbot: ${scenario}:line 2: strategy.use: "mean-reverson" is not a shipped example (challenge-aware, donchian-breakout, mean-reversion, sma-cross), ` +
        `a file path (start it with ./ or give its .ts/.js extension), or a package installed where ${dir} resolves packages; did you mean "mean-reversion"?`,
    );
  });

  it('--to before the first candle and --from after the last: the flag, and where the candles are', async () => {
    const dir = tempDir();
    const csv = path.join(dir, 'three.csv');
    const day = 86_400_000;
    const t0 = Date.UTC(2024, 0, 1);
    writeFileSync(csv, ['timestamp_ms,open,high,low,close,volume', ...[0, 1, 2].map((i) => `${t0 + i * day},10,11,9,10,1`)].join('\n') + '\n');
    const run = (...range: string[]) => propbot(['backtest', '--strategy', 'sma-cross', '--data', `BTC=${csv}`, '--param', 'period=1D', ...range, '--out', path.join(dir, 'out')], dir);
    const early = await run('--to', '2023-12-31');
    expect(early.code).toBe(2);
    expect(early.stderr.trim()).toBe(`propbot: --to: 2023-12-31T00:00Z is not after the first candle of ${csv} (2024-01-01T00:00Z)`);
    const late = await run('--from', '2024-02-01');
    expect(late.stderr.trim()).toBe(`propbot: --from: 2024-02-01T00:00Z is after the last candle of ${csv} (2024-01-03T00:00Z; its first: 2024-01-01T00:00Z)`);
    // Inside the file's span, between two of its candles.
    const between = await run('--from', '2024-01-01T06:00:00Z', '--to', '2024-01-01T18:00:00Z');
    expect(between.stderr.trim()).toBe(`propbot: markets.BTC: no candles in ${csv} from 2024-01-01T06:00Z to 2024-01-01T18:00Z (a gap in its data)`);
  });

  it("a strategy's asset or period the data cannot give names the parameter that holds it", async () => {
    const dir = tempDir();
    const run = (...args: string[]) => propbot(['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL}`, ...args, '--out', path.join(dir, 'out')], dir);
    const asset = await run('--param', 'period=1D');
    expect(asset.code).toBe(2);
    expect(asset.stderr.trim()).toBe(
      'propbot: strategies: strategy sma-cross trades BTC (its parameter asset), but no data file is given for BTC (markets: ORCL); set its parameter asset to ORCL, or give BTC\'s data',
    );
    const period = await run('--param', 'asset=ORCL');
    expect(period.code).toBe(2);
    expect(period.stderr.trim()).toBe(
      `propbot: strategies: sma-cross asks for 15m candles of ORCL, but ${ORCL} holds 1D candles: a 15m candle cannot be built from 1D rows. ` +
        'Set its parameter period to 1D or longer, or give finer data.',
    );
  });

  it('a range that ends before it starts names where each end came from, after the flags have overridden the file', async () => {
    const { dir, scenario } = scenarioIn(`strategy:\n  use: sma-cross\n  params: { period: 1D, asset: ORCL }\ndata:\n  - asset: ORCL\n    file: ${JSON.stringify(ORCL)}\nfrom: 2001-05-10\nto: 2001-05-01\n`);
    const run = (...args: string[]) => propbot(['backtest', ...args, '--out', path.join(dir, 'out')], dir);
    const inFile = await run(scenario);
    expect(inFile.code).toBe(2);
    expect(inFile.stdout).toBe('');
    expect(inFile.stderr.trim()).toBe(`propbot: ${scenario}:line 8: to: 2001-05-01T00:00Z must be after from (2001-05-10T00:00Z, line 7)`);
    const flagAndFile = await run(scenario, '--to', '2001-01-01');
    expect(flagAndFile.stderr.trim()).toBe(`propbot: --to: 2001-01-01T00:00Z must be after from (2001-05-10T00:00Z, ${scenario}:line 7)`);
    const flags = await run('--strategy', 'sma-cross', '--param', 'period=1D', '--data', `ORCL=${ORCL}`, '--from', '2001-05-10', '--to', '2001-05-01');
    expect(flags.stderr.trim()).toBe('propbot: --to: 2001-05-01T00:00Z must be after --from (2001-05-10T00:00Z)');
    // A flag that mends the file's range is taken, not refused for the file's.
    const mended = await run(scenario, '--to', '2001-06-01', '--json');
    expect(mended.code, mended.stderr).toBe(0);
    expect(JSON.parse(mended.stdout).period).toMatchObject({ start: '2001-05-10T00:00:00.000Z', end: '2001-05-31T23:59:59.999Z' });
  });
});

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');

/** A plugin that logs each daily close and throws on the fifth candle (line 13 of the file). */
const STREAM_THROWER = `import { defineStrategy, rx } from 'propbot';

export default defineStrategy({
  name: 'thrower',
  version: '1.0.0',
  assets: ['ORCL'],
  setup(ctx) {
    let n: number = 0;
    return ctx.candles('ORCL', '1D').pipe(
      rx.mergeMap((candle) => {
        n += 1;
        ctx.log.info({ close: candle.close.toString() }, \`candle \${n}\`);
        if (n === 5) throw new Error(\`boom on candle \${n}\`);
        return [];
      }),
    );
  },
});
`;

describe('propbot backtest: a strategy that throws', () => {
  it('in its stream: exit 1 naming the strategy, the message and the line; report.json and the HTML say so', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'thrower.ts'), STREAM_THROWER);
    const out = path.join(dir, 'out');
    const r = await propbot(['backtest', '--strategy', './thrower.ts', '--data', `ORCL=${ORCL}`, '--out', out], dir);
    expect(r.code).toBe(1);
    // The fifth daily candle closes at the first price of 2001-01-09 (the market time of the throw).
    const line = `propbot: strategy thrower failed in its stream at 2001-01-09T00:00:00.000Z (market time) and was stopped: boom on candle 5 (${path.join(dir, 'thrower.ts')}:13:28)`;
    expect(r.stderr.split('\n')).toContain(line);
    expect(r.stdout).toMatch(/^strategy errors\s+thrower failed in its stream/m);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.failures).toEqual([
      { strategy: 'thrower', at: '2001-01-09T00:00:00.000Z', failedIn: 'in its stream', message: 'boom on candle 5', location: `${path.join(dir, 'thrower.ts')}:13:28` },
    ]);
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toMatch(/<div class="banner" id="strategy-failures" role="alert">.*thrower<\/b> failed in its stream at .*boom on candle 5/);
  });

  it('in setup: exit 1 with the line of the throw in the .mts file', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'setup.mts'),
      "import { defineStrategy } from 'propbot';\n\nexport default defineStrategy({\n  name: 'bad-setup', version: '1.0.0', assets: ['ORCL'],\n  setup(): never {\n    throw new RangeError('setup went wrong');\n  },\n});\n",
    );
    const r = await propbot(['backtest', '--strategy', './setup.mts', '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out'), '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`propbot: strategy bad-setup failed in setup at 2001-01-02T00:00:00.000Z (market time) and was stopped: setup went wrong (${path.join(dir, 'setup.mts')}:6:11)`);
    expect(JSON.parse(r.stdout).failures).toHaveLength(1);
  });

  it('at load: exit 2 before the run, with the message and the line', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'load.ts'), "import { defineStrategy } from 'propbot';\nconst table: Record<string, number> = {};\nif (table['x'] === undefined) throw new Error('cannot start: no table');\nexport default defineStrategy({ name: 'never', version: '1.0.0', assets: ['ORCL'], setup: () => { throw 1; } });\n");
    const r = await propbot(['backtest', '--strategy', './load.ts', '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out')], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`propbot: --strategy: ${path.join(dir, 'load.ts')}: failed to load: cannot start: no table (${path.join(dir, 'load.ts')}:3:37)`);
  });
});

describe('propbot backtest: a plugin that does not parse', () => {
  // Line 5, column 26 (from 1) is the ";" after "+": the place an editor jumps to.
  const body = "import { defineStrategy } from 'propbot';\n\nexport default defineStrategy({\n  name: 'typo', version: '1.0.0', assets: ['ORCL'],\n  setup() { const x = 1 +; return null; },\n});\n";

  it.each(['typo.ts', 'typo.mjs'])('%s: exit 2 before the run, with file:line:column, what is wrong and the line', async (name) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, name), body);
    const r = await propbot(['backtest', '--strategy', `./${name}`, '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out')], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`propbot: --strategy: ${path.join(dir, name)}:5:26: syntax error: Unexpected ";" (\`setup() { const x = 1 +; return null; },\`)`);
  });
});

describe('propbot backtest --log', () => {
  const logLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; time: string; msg: string; strategy?: string });

  it('shows ctx.log lines and intents in market time at info; by default only strategy errors', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'thrower.ts'), STREAM_THROWER);
    const args = ['backtest', '--strategy', './thrower.ts', '--data', `ORCL=${ORCL}`, '--out', path.join(dir, 'out')];
    const info = logLines((await propbot([...args, '--log', 'info'], dir)).stderr);
    expect(info.filter((l) => l.msg.startsWith('candle ')).map((l) => [l.time, l.msg])).toEqual([
      ['2001-01-03T00:00:00.000Z', 'candle 1'],
      ['2001-01-04T00:00:00.000Z', 'candle 2'],
      ['2001-01-05T00:00:00.000Z', 'candle 3'],
      ['2001-01-08T00:00:00.000Z', 'candle 4'],
      ['2001-01-09T00:00:00.000Z', 'candle 5'],
    ]);
    const quiet = logLines((await propbot(args, dir)).stderr);
    expect(quiet.map((l) => [l.level, l.time, l.msg])).toEqual([[50, '2001-01-09T00:00:00.000Z', `strategy thrower failed in its stream; stopped: boom on candle 5 (${path.join(dir, 'thrower.ts')}:13:28)`]]);
  });

  it('takes `log:` from a scenario file, and shows the intents the pipeline receives', async () => {
    const { dir, scenario } = scenarioIn(`strategy:\n  use: sma-cross\n  params: { asset: ORCL, period: 1D, fast: 5, slow: 20, leverage: '1' }\ndata:\n  - { asset: ORCL, file: ${JSON.stringify(ORCL)} }\nout: ./out\nlog: info\n`);
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(0);
    const intents = logLines(r.stderr).filter((l) => / sma-cross: open /.test(l.msg));
    expect(intents.length).toBeGreaterThan(0);
    // In market time: inside 2001, not today.
    for (const l of intents) expect(l.time.startsWith('2001-')).toBe(true);
    expect(logLines(r.stderr).some((l) => l.strategy === 'sma-cross' && l.msg.includes('fast average crossed'))).toBe(true);
    // The guard's verdict and the executor's requests and result, for the first intent the pipeline took.
    const first = logLines(r.stderr).find((l) => / sma-cross: open /.test(l.msg)) as { msg: string; intent?: { id: string } } | undefined;
    const id = first?.intent?.id;
    expect(id).toBeDefined();
    const about = logLines(r.stderr).filter((l) => (l as { intentId?: string }).intentId === id) as Array<{ msg: string; what?: string }>;
    expect(about.map((l) => l.msg)).toEqual([`approved open ${id}`, 'request createOrder ok', `intent ${id} done`]);
    // The decision line describes the intent as its intent line does (the human log prints `what`).
    expect(about[0]!.what).toBe(first!.msg.slice(first!.msg.indexOf('sma-cross: ') + 'sma-cross: '.length));
  });
});

describe('a refused parameter is named by what gave it', () => {
  const scenarioFile = (dir: string, params: string): string =>
    scenarioIn(`strategy:\n  use: sma-cross\n  params: { asset: ORCL, period: 1D, ${params} }\ndata:\n  - asset: ORCL\n    file: ${JSON.stringify(ORCL)}\n`, dir).scenario;

  it('a --param or --params over a scenario file names the flag, not the file', async () => {
    const dir = tempDir();
    const scenario = scenarioFile(dir, 'fast: 5');
    const param = await propbot(['backtest', scenario, '--param', 'slow=abc'], dir);
    expect(param.code).toBe(2);
    expect(param.stderr.trim()).toBe('propbot: --param slow: strategy "sma-cross": parameter "slow": Invalid input: expected number, received string');
    const params = await propbot(['backtest', scenario, '--params', '{"fats":3}'], dir);
    expect(params.stderr.trim()).toMatch(/^propbot: --params fats: strategy "sma-cross": parameter "fats": unknown parameter "fats"; known: asset, period, fast, slow, amount, leverage, stopPercent, allowShort; did you mean "fast"\?$/);
    // Without a scenario file, the flag and the parameter, not a dotted "--param.slow".
    const alone = await propbot(['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL}`, '--param', 'asset=ORCL', '--param', 'slow=1'], dir);
    expect(alone.stderr.trim()).toMatch(/^propbot: --param slow: strategy "sma-cross": parameter "slow": Too small: expected number to be >=2/);
  });

  it("a sweep says whether the grid or the scenario's own parameter refused every combination", async () => {
    const dir = tempDir();
    const byGrid = await propbot(['sweep', scenarioFile(dir, 'slow: 10'), '--grid', 'fast=20,30', '--out', path.join(dir, 'a')], dir);
    expect(byGrid.code).toBe(2);
    expect(byGrid.stderr.trim()).toBe('propbot: --grid: the strategy refuses every combination; the first: --grid fast: strategy "sma-cross": parameter "fast": fast must be shorter than slow');
    const scenario = scenarioFile(dir, 'leverage: "0.5"');
    const byFile = await propbot(['sweep', scenario, '--grid', 'fast=2,3', '--out', path.join(dir, 'b')], dir);
    expect(byFile.code).toBe(2);
    expect(byFile.stderr.trim()).toMatch(
      new RegExp(`^propbot: --grid: the strategy refuses every combination; the first: ${scenario.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:line 3: strategy\\.params\\.leverage: strategy "sma-cross": parameter "leverage": `),
    );
  });
});

describe("the account's balance and phase", () => {
  it('--balance and --phase are refused by the flag, a scenario phase by its key and line with the nearest phase', async () => {
    const dir = tempDir();
    const base = ['backtest', '--strategy', 'sma-cross', '--data', 'BTC=coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv'];
    const balance = await propbot([...base, '--balance', '-5'], dir);
    expect(balance.code).toBe(2);
    expect(balance.stderr).toContain(`error: option '--balance <amount>' argument '-5' is invalid. expected a decimal number above 0 like 100000 or 2500.50, got "-5"`);
    const phase = await propbot([...base, '--phase', 'fundd'], dir);
    expect(phase.code).toBe(2);
    expect(phase.stderr).toContain("error: option '--phase <phase>' argument 'fundd' is invalid. Allowed choices are active_evaluation, active_verification, funded, funded_success, demo.");
    const { scenario } = scenarioIn('strategy:\n  use: sma-cross\ndata:\n  - asset: BTC\n    file: coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv\nphase: fundd\n', dir);
    const file = await propbot(['backtest', scenario], dir);
    expect(file.code).toBe(2);
    expect(file.stderr.trim()).toBe(
      `propbot: ${scenario}:line 6: phase: Invalid option: expected one of "active_evaluation"|"active_verification"|"funded"|"funded_success"|"demo"; did you mean "funded"?`,
    );
  });
});

describe('two strategies of one name in a scenario', () => {
  it('the second is refused by its key and line, naming the first', async () => {
    const { dir, scenario } = scenarioIn('strategies:\n  - use: sma-cross\n    params: { period: 1h }\n  - use: sma-cross\n    params: { period: 4h }\ndata:\n  - asset: BTC\n    file: coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv\n');
    const r = await propbot(['backtest', scenario], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`propbot: ${scenario}:line 4: strategies.1: a second strategy named "sma-cross" (the first is strategies.0); give one of them its own \`name:\``);
  });
});
