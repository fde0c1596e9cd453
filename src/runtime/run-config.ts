/**
 * The configuration of `propbot run`, as YAML. Every key is checked (unknown keys are errors naming the
 * key and line); secrets come from the environment: in `live` mode the API key is read only from the
 * variable named by `connection.apiKeyEnv`, never from the file.
 */
import path from 'node:path';
import { z } from 'zod';
import { baseUrlProblem } from '../api/client.js';
import { ACCOUNT_TYPES } from '../api/types.js';
import { loadConfigFile, parseConfigText } from '../core/config-file.js';
import { FEED_RESOURCES } from '../feed/polling-feed.js';
import { RiskGuardConfigSchema } from '../risk/config.js';
import { envName, NotifyConfigSchema } from './notify/config.js';
import { checkRange } from './run-range.js';
import { BACKTEST_PRESETS, dateValue, MarketFileSchema, PHASE_NAMES, requireDataFiles, resolveDataFile, resolveStrategySpec } from './scenario.js';

export const RUN_MODES = ['paper', 'sandbox', 'live'] as const;
export type RunMode = (typeof RUN_MODES)[number];

const windowSchema = z.strictObject({
  limit: z.number().int().positive(),
  windowMs: z.number().int().positive(),
  label: z.string().min(1).optional(),
});

const decimalText = z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal such as "100000"')]).transform(String);

/** An account's id as the platform gives it (`GET /accounts/risk-status`, `propbot sandbox --describe-out`). */
const accountId = z.string().uuid('expected an account id, a UUID such as 4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3');

export const RunConfigSchema = z.strictObject({
  mode: z.enum(RUN_MODES).default('paper'),
  /** Paper mode: the local engine, fed by a replay of candle files. */
  paper: z
    .strictObject({
      markets: z.array(MarketFileSchema).min(1),
      /** Virtual time per wall second: 3600 replays an hour of candles each second; 0 = as fast as it goes. */
      speed: z.number().nonnegative().default(3600),
      from: dateValue.optional(),
      to: dateValue.optional(),
      balance: decimalText.default('100000'),
      phase: z.enum(PHASE_NAMES).optional(),
      accountType: z.enum(ACCOUNT_TYPES).default('real'),
      preset: z.enum(BACKTEST_PRESETS).default('default'),
      seed: z.string().min(1).default('propbot'),
      /**
       * Candles replayed before `from` at full speed, their intents not executed, so the strategies'
       * indicators are ready when the paced run starts (Freqtrade's `startup_candle_count`). Without
       * `from` the run starts at the first candle and there is nothing to warm up on.
       */
      warmup: z.number().int().nonnegative().default(200),
    })
    .optional(),
  /** Sandbox and live modes: where the API is and where the key comes from. */
  connection: z
    .strictObject({
      baseUrl: z.string().superRefine((url, ctx) => {
        // The client's own rules, checked here so the error names this file and line.
        const problem = baseUrlProblem(url, 'the API key belongs in the environment variable named by connection.apiKeyEnv');
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
      /** Name of the environment variable holding the API key. */
      apiKeyEnv: envName.default('PROPBOT_API_KEY'),
      timeoutMs: z.number().int().positive().default(10_000),
    })
    .optional(),
  /** Accounts to trade (sandbox/live); omitted: every account the key may trade. */
  accounts: z.array(z.strictObject({ id: accountId })).optional(),
  strategies: z
    .array(
      z.strictObject({
        /** Plugin file, package, or shipped example name. */
        use: z.string().min(1),
        name: z.string().min(1).optional(),
        /** Account it trades (sandbox/live); default the first account. */
        account: accountId.optional(),
        params: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .min(1, 'expected at least one strategy'),
  risk: RiskGuardConfigSchema.optional(),
  executor: z
    .strictObject({
      limits: z.strictObject({ read: z.array(windowSchema).optional(), write: z.array(windowSchema).optional() }).optional(),
      maxQueueWaitMs: z.number().int().positive().optional(),
      maxQueuedEntries: z.number().int().positive().optional(),
    })
    .default({}),
  feed: z
    .strictObject({
      intervalMs: z.partialRecord(z.enum(FEED_RESOURCES), z.number().int().positive()).optional(),
      maxAgeMs: z.partialRecord(z.enum(FEED_RESOURCES), z.number().int().positive()).optional(),
    })
    .default({}),
  store: z
    .strictObject({
      file: z.string().min(1).default('.propbot/propbot.db'),
      /** Record market snapshots so the session can be replayed by the backtester. */
      recordSnapshots: z.boolean().default(true),
    })
    .prefault({}),
  status: z
    .strictObject({
      /** 0 picks a free port; omit the block or set `enabled: false` to run without it. */
      enabled: z.boolean().default(true),
      port: z.number().int().min(0).max(65535).default(8787),
      /**
       * Address to listen on; omitted: 127.0.0.1. Anything but a loopback address must be written here
       * on purpose: the dashboard shows the account to whoever can reach it.
       */
      host: z.string().min(1).optional(),
      /** Host names (as in the `Host` header) the server answers besides the loopback names and `host`. */
      allowedHosts: z.array(z.string().min(1)).default([]),
      /** Name of the environment variable holding the control token; omitted: the dashboard is read-only. */
      controlTokenEnv: envName.optional(),
      /** How often the dashboard's live stream sends what changed, ms. */
      pushIntervalMs: z.number().int().min(50).max(60_000).default(1000),
    })
    .prefault({}),
  notify: NotifyConfigSchema.optional(),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      /** `pretty`: one short line per event in market time; `json`: JSON lines; `auto`: pretty on a terminal, JSON otherwise. */
      format: z.enum(['json', 'pretty', 'auto']).default('auto'),
    })
    .prefault({}),
  shutdown: z
    .strictObject({
      /** What to do with entries not yet sent at shutdown: wait for them, or drop them. Protective orders always stay. */
      pending: z.enum(['drain', 'cancel']).default('cancel'),
      /** Also cancel resting entry orders on the venue (stops and takes are kept). */
      cancelOpenEntries: z.boolean().default(false),
      drainTimeoutMs: z.number().int().positive().default(10_000),
    })
    .prefault({}),
  reconcile: z
    .strictObject({
      /** Orders and positions the daemon did not place are adopted as external and never touched unless this is true. */
      manageExternal: z.boolean().default(false),
    })
    .prefault({}),
});

export type RunConfig = z.output<typeof RunConfigSchema>;

export interface LoadedRunConfig {
  readonly config: RunConfig;
  /** File the config came from (`embedded default` when none). */
  readonly source: string;
  /** Base of the config's relative paths. */
  readonly baseDir: string;
}

/** Load and check a run config; mode-specific requirements are checked here too. */
export function loadRunConfig(file: string, env: Record<string, string | undefined> = process.env): LoadedRunConfig {
  const config = loadConfigFile(file, RunConfigSchema, { env });
  const baseDir = path.dirname(path.resolve(file));
  checkMode(config, file);
  checkPaperRange(config, file);
  if (config.paper) requireDataFiles(config.paper.markets, 'paper.markets', file);
  return { config: resolvePaths(config, baseDir), source: file, baseDir };
}

export function parseRunConfig(text: string, baseDir: string, name = 'config', env: Record<string, string | undefined> = process.env): LoadedRunConfig {
  const config = parseConfigText(text, RunConfigSchema, { env, displayName: name });
  checkMode(config, name);
  checkPaperRange(config);
  return { config: resolvePaths(config, baseDir), source: name, baseDir };
}

function checkMode(config: RunConfig, file: string): void {
  // Imported lazily by callers that need ConfigError; kept here so every mode rule is in one place.
  const fail = (key: string, message: string): never => {
    throw new RunConfigError(key, message, file);
  };
  if (config.mode === 'paper' && !config.paper) fail('paper', "mode 'paper' needs a 'paper' block with at least one market and its data file");
  if (config.mode !== 'paper' && !config.connection) fail('connection', `mode '${config.mode}' needs 'connection.baseUrl' (and the key in the environment variable 'connection.apiKeyEnv')`);
}

/** A paper run whose `to` is not after its `from` would replay nothing and stop: refused at start-up. */
function checkPaperRange(config: RunConfig, file?: string): void {
  const at = file !== undefined ? { file } : {};
  const end = (key: 'from' | 'to') => (config.paper?.[key] !== undefined ? { ms: config.paper[key], key: `paper.${key}`, ...at } : undefined);
  checkRange(end('from'), end('to'));
}

function resolvePaths(config: RunConfig, baseDir: string): RunConfig {
  return {
    ...config,
    ...(config.paper ? { paper: { ...config.paper, markets: config.paper.markets.map((m) => ({ ...m, file: resolveDataFile(m.file, baseDir) })) } } : {}),
    strategies: config.strategies.map((s) => ({ ...s, use: resolveStrategySpec(s.use, baseDir) })),
    store: { ...config.store, file: config.store.file === ':memory:' ? ':memory:' : path.resolve(baseDir, config.store.file) },
  };
}

import { ConfigError } from '../core/errors.js';
class RunConfigError extends ConfigError {
  constructor(key: string, message: string, file: string) {
    super(key, message, { file });
  }
}
