/**
 * A backtest scenario: what `propbot backtest` runs, from a YAML file (`backtest/*.yaml`) or from
 * command-line flags. Paths in a file are relative to the file; on the command line, to the working
 * directory. Built-in example strategies may be named without a path (`sma-cross`). A data file may
 * be an http(s) URL: `fetchScenarioData` downloads it into the cache before a run.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Decimal } from 'decimal.js';
import { z } from 'zod';
import { ACCOUNT_TYPES, MARKET_CATEGORIES, type AccountType, type MarketCategory } from '../api/types.js';
import { Dec } from '../core/decimal.js';
import { configKeyLine, loadConfigFile } from '../core/config-file.js';
import { ConfigError } from '../core/errors.js';
import { PACKAGE_ROOT, shippedFiles } from '../core/package.js';
import { redisUrlProblem } from '../core/redis-url.js';
import { ENGINE_PRESETS } from '../engine/presets.js';
import { DataFetchError, dataUrlProblem, fetchDataFile, isDataUrl, type FetchDataOptions } from '../feed/files/remote.js';
import { FILE_LAYOUTS, type FileLayout } from '../feed/files/types.js';
import type { BacktestResult } from '../report/types.js';
import { RiskGuardConfigSchema, type RiskGuardConfigInput } from '../risk/config.js';

export const BACKTEST_PRESETS = ['default', 'zero-cost'] as const;
/** The challenge phases a local account can be in (the engine's phase presets): a `phase` or `--phase`. */
export const PHASE_NAMES = Object.keys(ENGINE_PRESETS.phases) as [string, ...string[]];
/** What a backtest logs (to stderr, in market time): by default (`error`) strategy errors only. */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/**
 * `on`: the account is judged by its phase's challenge rules and every intent passes the risk guard,
 * as on the platform. `off`: neither (no drawdown failure, no target, no guard), for comparing a
 * strategy with other backtesters; the report says so at the top.
 */
export const BACKTEST_RULES = ['on', 'off'] as const;
export type BacktestRules = (typeof BACKTEST_RULES)[number];
export type BacktestPreset = (typeof BACKTEST_PRESETS)[number];


export interface ScenarioMarket {
  readonly asset: string;
  /** The local file; for a URL, its copy in the cache once fetched (the URL itself until then). */
  readonly file: string;
  /** Where the data comes from when it was given as an http(s) URL. */
  readonly url?: string;
  readonly category?: MarketCategory;
  readonly layout?: FileLayout;
}

export interface Scenario {
  readonly name: string;
  /** `key`: where the file names it (`strategy` or `strategies.N`), or `--param` when the flags did. */
  readonly strategies: ReadonlyArray<{ use: string; params: Record<string, unknown>; name?: string; key?: string; paramFlags?: Readonly<Record<string, string>> }>;
  readonly markets: readonly ScenarioMarket[];
  readonly from?: number;
  readonly to?: number;
  readonly preset: BacktestPreset;
  readonly balance: Decimal;
  readonly phase?: string;
  readonly accountType: AccountType;
  readonly risk?: RiskGuardConfigInput;
  readonly rules: BacktestRules;
  readonly out?: string;
  readonly seed: string;
  readonly log?: LogLevel;
  /** Where `sweep` and `walkforward` run (the scenario file's `research` block). */
  readonly research?: ScenarioResearch;
  /** Base for relative paths. */
  readonly baseDir: string;
  /** The scenario file, when there is one. */
  readonly file?: string;
}

export interface ScenarioResearch {
  /** The Redis queue `propbot worker`s take the runs from (`--queue` overrides it, `--no-queue` ignores it). */
  readonly queue?: string;
}

/**
 * The scenario's schemas, made on first use (`schemas`): building their zod objects when the module
 * loaded was ~5% of the start-up of a backtest that reads no scenario file (`propbot backtest
 * --strategy … --data …`). As the risk guard's (risk/config.ts).
 */
function buildSchemas() {
  const dateValue = z.union([z.string(), z.number(), z.date()]).transform((v, ctx) => {
    const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: `expected a date like 2021-05-19 or an ISO date-time, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return ms;
  });

  const marketFile = z.strictObject({
    asset: z.string().regex(/^[A-Za-z0-9._-]{1,20}$/, 'expected a ticker like BTC'),
    // A paper run replays its file as time passes; only a scenario's data may be fetched first.
    file: z.string().min(1).refine((f) => !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(f), 'expected a local file: download the data and name its path (URLs are for backtest, sweep and walkforward scenarios)'),
    category: z.enum(MARKET_CATEGORIES).optional(),
    layout: z.enum(FILE_LAYOUTS).optional(),
    /** Where to get the file when it is not there (a data set that may not be shipped): shown if it is missing. */
    source: z.string().min(1).optional(),
  });

  const strategySchema = z.strictObject({
    use: z.string().min(1),
    params: z.record(z.string(), z.unknown()).default({}),
    name: z.string().min(1).optional(),
  });

  const scenario = z.strictObject({
    name: z.string().min(1).optional(),
    strategy: strategySchema.optional(),
    strategies: z.array(strategySchema).min(1).optional(),
    data: z
      .array(
        marketFile.extend({
          /** A path relative to the scenario file, or an http(s) URL fetched into the cache. */
          file: z.string().min(1).superRefine((file, ctx) => {
            const problem = dataUrlProblem(file);
            if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
          }),
        }),
      )
      .min(1),
    from: dateValue.optional(),
    to: dateValue.optional(),
    preset: z.enum(BACKTEST_PRESETS).default('default'),
    balance: z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]).default(100000),
    phase: z.enum(PHASE_NAMES).optional(),
    accountType: z.enum(ACCOUNT_TYPES).default('real'),
    /**
     * The risk guard's configuration (as `risk` of a run configuration). Kept as written (a sweep hands it
     * to its worker threads, where the guard parses it), and checked here so that a bad value is named
     * with its line in the file, before any run starts.
     */
    risk: z
      .record(z.string(), z.unknown())
      .superRefine((risk, ctx) => {
        const checked = RiskGuardConfigSchema.safeParse(risk);
        if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      })
      .optional(),
    rules: z.enum(BACKTEST_RULES).default('on'),
    out: z.string().min(1).optional(),
    seed: z.string().min(1).default('propbot'),
    log: z.enum(LOG_LEVELS).optional(),
    /** How `propbot sweep` and `propbot walkforward` run this scenario's searches. */
    research: z
      .strictObject({
        /** `redis://HOST:PORT[/DB]`: put the runs on this queue for `propbot worker`s (as `--queue`, which overrides it). */
        queue: z
          .string()
          .superRefine((url, ctx) => {
            const problem = redisUrlProblem(url);
            if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
          })
          // for editors; the loader's check above says what is wrong
          .meta({ pattern: '^(redis://\\S+|.*\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}.*)$' }),
      })
      .partial()
      .optional(),
  });

  return { dateValue, marketFile, scenario };
}

let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = (): ReturnType<typeof buildSchemas> => (built ??= buildSchemas());

// Exported as `z.lazy`, as risk/config.ts does: embedding them (a run configuration's `paper`) and
// parsing with them work as before, and `.unwrap()` gives the schema itself (its `extend`).

/** A date in a config file: `2021-05-19` (UTC midnight), an ISO date-time, unix ms, or a YAML date. */
export const dateValue = z.lazy(() => schemas().dateValue);
/** A market and the file its prices come from: a scenario's `data` and a paper run's `paper.markets`. */
export const MarketFileSchema = z.lazy(() => schemas().marketFile);
export const ScenarioSchema = z.lazy(() => schemas().scenario);

/**
 * Every local data file of `entries` (a scenario's `data`, a paper run's `paper.markets`) is there, or
 * the error names the first that is not by its key and line in `configFile`, and where to get it.
 */
export function requireDataFiles(entries: readonly { readonly file: string; readonly source?: string | undefined }[], key: string, configFile: string): void {
  const baseDir = path.dirname(path.resolve(configFile));
  for (const [i, d] of entries.entries()) {
    if (isDataUrl(d.file)) continue;
    const data = resolveDataFile(d.file, baseDir);
    if (existsSync(data)) continue;
    const line = configKeyLine(configFile, [...key.split('.'), String(i), 'file']);
    throw new ConfigError(`${key}.${i}.file`, dataFileNotFound(data, d.source), { file: configFile, ...(line !== undefined ? { line } : {}) });
  }
}

/**
 * "data file not found", with where to get it: the entry's own `source` when it has one (a data set
 * that is not shipped), else the shipped datasets, which a path names from any folder by their name.
 */
export function dataFileNotFound(file: string, source?: string): string {
  if (source) return `data file not found: ${file} (${source})`;
  const shipped = shippedDatasets();
  return `data file not found: ${file}${shipped.length > 0 ? `; the shipped datasets, found by name from any folder: ${shipped.join(', ')}` : ''}`;
}

/** The candle files the package ships in backtest/data. */
export function shippedDatasets(): string[] {
  return shippedFiles(path.join('backtest', 'data'), ['.csv', '.json']);
}

/** Read a scenario file. */
export function loadScenario(file: string): Scenario {
  const raw = loadConfigFile(file, ScenarioSchema);
  const baseDir = path.dirname(path.resolve(file));
  const strategies = raw.strategies ?? (raw.strategy ? [raw.strategy] : []);
  if (strategies.length === 0) throw new ConfigError('strategy', 'a scenario needs `strategy` or `strategies`', { file });
  if (raw.strategy && raw.strategies) throw new ConfigError('strategies', 'give either `strategy` or `strategies`, not both', { file });
  requireDataFiles(raw.data, 'data', file);
  const scenario: Scenario = {
    name: raw.name ?? path.basename(file).replace(/\.ya?ml$/, ''),
    strategies: strategies.map((s, i) => ({
      use: resolveStrategySpec(s.use, baseDir),
      params: s.params,
      ...(s.name ? { name: s.name } : {}),
      key: raw.strategies ? `strategies.${i}` : 'strategy',
    })),
    markets: raw.data.map((d) => ({
      asset: d.asset.toUpperCase(),
      file: resolveDataFile(d.file, baseDir),
      ...(isDataUrl(d.file) ? { url: d.file } : {}),
      ...(d.category ? { category: d.category } : {}),
      ...(d.layout ? { layout: d.layout } : {}),
    })),
    preset: raw.preset,
    rules: raw.rules,
    balance: new Dec(String(raw.balance)),
    accountType: raw.accountType,
    seed: raw.seed,
    baseDir,
    file,
    ...(raw.from !== undefined ? { from: raw.from } : {}),
    ...(raw.to !== undefined ? { to: raw.to } : {}),
    ...(raw.phase !== undefined ? { phase: raw.phase } : {}),
    ...(raw.risk !== undefined ? { risk: raw.risk as RiskGuardConfigInput } : {}),
    ...(raw.out !== undefined ? { out: path.resolve(baseDir, raw.out) } : {}),
    ...(raw.log !== undefined ? { log: raw.log } : {}),
    ...(raw.research !== undefined ? { research: raw.research } : {}),
  };
  return scenario;
}

/**
 * A strategy given by name (`sma-cross`) is one of the shipped examples; a path stays a path
 * (relative to `baseDir`); anything else is a package name for the loader.
 */
export function resolveStrategySpec(spec: string, baseDir: string): string {
  if (/^[a-z0-9][a-z0-9-]*$/.test(spec)) {
    const shipped = path.join(PACKAGE_ROOT, 'strategies', `${spec}.ts`);
    if (existsSync(shipped)) return shipped;
  }
  if (spec.startsWith('.') || spec.includes('/') || spec.includes('\\') || /\.(m|c)?[jt]s$/.test(spec)) return path.resolve(baseDir, spec);
  return spec;
}

/**
 * A data file of a config: relative to the config's folder. A path that names one of the datasets the
 * package ships (`coinbase-….csv`, `../backtest/data/coinbase-….csv`) and is not found there is
 * the shipped file (also as `data/…`, the scenarios' spelling), so a copy of `config/paper.yaml` or of a
 * shipped scenario in another folder keeps working, as a shipped strategy is found by its name.
 */
export function resolveDataFile(file: string, baseDir: string): string {
  if (isDataUrl(file)) return file;
  const local = path.resolve(baseDir, file);
  if (existsSync(local) || path.isAbsolute(file)) return local;
  const shipped = path.join(PACKAGE_ROOT, 'backtest', 'data', path.basename(file));
  const rest = path.normalize(file).split(/[\\/]/).filter((part) => part !== '..' && part !== '.').join('/');
  const named = [path.basename(file), `data/${path.basename(file)}`, `backtest/data/${path.basename(file)}`].includes(rest);
  return named && existsSync(shipped) ? shipped : local;
}

/** Engine preset overrides and market preset names for a backtest preset. */
export function marketPresetFor(preset: BacktestPreset, category: MarketCategory | undefined): string | undefined {
  if (preset === 'zero-cost') return 'zero-cost';
  return category;
}

/** Guess a ticker from a data file name (`binance-btcusdt-1m.csv` → BTC). */
export function guessAsset(file: string): string | undefined {
  const name = path.basename(file).toLowerCase();
  for (const [needle, asset] of [
    ['btc', 'BTC'],
    ['eth', 'ETH'],
    ['orcl', 'ORCL'],
  ] as const) {
    if (name.includes(needle)) return asset;
  }
  return undefined;
}

/** The markets of a scenario with the engine preset each gets from the scenario's cost preset. */
export function scenarioMarkets(scenario: Pick<Scenario, 'markets' | 'preset'>): Array<ScenarioMarket & { preset?: string }> {
  return scenario.markets.map((m) => {
    const preset = marketPresetFor(scenario.preset, m.category);
    return { ...m, ...(preset !== undefined ? { preset } : {}) };
  });
}

/**
 * The scenario with every data file given as a URL fetched into the cache (see `feed/files/remote.ts`):
 * `file` becomes the local copy and `url` stays. A URL that cannot be fetched is an error at the key
 * that names it (`data.0.file` with the scenario file's line), or at `flag` when the data came from
 * the command line.
 */
export async function fetchScenarioData(scenario: Scenario, options: FetchDataOptions & { flag?: string } = {}): Promise<Scenario> {
  const markets: ScenarioMarket[] = [];
  for (const [i, m] of scenario.markets.entries()) {
    if (m.url === undefined) {
      markets.push(m);
      continue;
    }
    try {
      markets.push({ ...m, file: (await fetchDataFile(m.url, options)).file });
    } catch (err) {
      if (!(err instanceof DataFetchError)) throw err;
      if (options.flag !== undefined || scenario.file === undefined) throw new ConfigError(options.flag ?? 'data', err.message, { cause: err });
      const line = configKeyLine(scenario.file, ['data', String(i), 'file']);
      throw new ConfigError(`data.${i}.file`, err.message, { file: scenario.file, ...(line !== undefined ? { line } : {}), cause: err });
    }
  }
  return { ...scenario, markets };
}

/**
 * A result whose data report names each market's data as the scenario does: the URL rather than the
 * cache's copy, and the coordinator's path rather than the one a worker read it from.
 */
export function withScenarioDataNames(result: BacktestResult, markets: readonly ScenarioMarket[]): BacktestResult {
  if (!result.data) return result;
  return {
    ...result,
    data: result.data.map((d) => {
      const m = markets.find((x) => x.asset === d.market);
      return m ? { ...d, file: m.url ?? m.file } : d;
    }),
  };
}
