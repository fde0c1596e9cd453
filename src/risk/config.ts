/**
 * The guard's configuration: one block per rule, each with `enabled` and its numbers. The zod schema is
 * exported so the daemon's YAML configuration can embed it under its `risk` key; every number has a
 * default (the ENGINE-MODEL presets where the platform has one). Ratios are fractions: 0.05 = 5%.
 * Decimal values may be written as strings ("0.05") or YAML numbers (0.05); they become Decimals.
 */
import { z } from 'zod';
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { ACCOUNT_TYPES } from '../api/types.js';

const d = (text: string): Decimal => new Dec(text);

/** The ENGINE-MODEL drawdown preset of every phase. */
const PRESET_LIMITS = { daily: d('0.05'), total: d('0.10'), trailing: null };

/**
 * Every default, written once: the schemas below take theirs from here, and a guard without a
 * configuration (every backtest that sets no `risk`) takes the whole object as it is. Parsing `{}`
 * for it when the module loaded cost ~6-13 ms of each start-up (zod compiles its object parsers on
 * their first parse, and the parse runs cold). test/risk/config.test.ts holds it equal, key order
 * included, to what the schema gives for `{}`.
 */
const DEFAULTS = {
  accountStatus: { enabled: true, requireAccountRecord: false },
  marketStatus: { enabled: true, pauseLeadMs: 300_000, denyStale: true },
  leverage: { enabled: true, minLeverage: d('1'), maxLeverage: null },
  notionalCap: { enabled: true },
  freeBalance: { enabled: true },
  drawdown: {
    enabled: true,
    maxAdverseMove: d('0.05'),
    buffer: d('0.005'),
    stopSlippage: d('0.002'),
    spreadMultiplier: d('2'),
    pendingSettleMs: 2_000,
    countPendingEntries: true,
    defaultPhase: 'active_evaluation',
    phases: { active_evaluation: PRESET_LIMITS, active_verification: PRESET_LIMITS, funded: PRESET_LIMITS, funded_success: PRESET_LIMITS },
  },
  consistency: { enabled: true, buffer: d('0.02') },
  profitWindow: { enabled: true, windowMs: 60_000 },
  scalping: { enabled: true, windowMs: 3_600_000 },
  tradesPerDay: { enabled: true, max: 20 },
  openPositions: { enabled: true, max: 5 },
  lossStreak: { enabled: true, losses: 3, cooldownMs: 3_600_000 },
  killSwitch: { enabled: true, share: d('0.2'), onExposureBreach: true },
  strategies: {},
  accounts: {},
};

/**
 * The schemas, built on their first use: zod 4 builds a schema node by node when it is declared, and
 * declaring these ~80 nodes as the module loaded cost every start-up 10-16 ms (the code cached, the
 * calls cold), before any configuration was there to check. A backtest without a `risk` block takes
 * DEFAULT_RISK_GUARD_CONFIG and never builds them.
 */
function buildSchemas() {
  const DECIMAL_TEXT = /^-?(?:\d+)(?:\.\d+)?$/;

  const decimalValue = z
    .union([
      z.custom<Decimal>((v) => Decimal.isDecimal(v), 'expected a decimal'),
      z.string().regex(DECIMAL_TEXT, 'expected a decimal such as "0.05"'),
      z.number().refine((n) => Number.isFinite(n), 'expected a finite number'),
    ])
    .transform((v): Decimal => new Dec(String(v)));

  /** A fraction in [0, 1]. */
  const ratio = decimalValue.refine((d) => d.gte(0) && d.lte(1), 'expected a fraction between 0 and 1 (0.05 = 5%)');
  const positiveDecimal = decimalValue.refine((d) => d.gt(0), 'expected a number above 0');
  const durationMs = z.number().int('expected whole milliseconds').nonnegative('expected 0 or more milliseconds');
  const count = z.number().int('expected a whole number').nonnegative('expected 0 or more');

  /** Drawdown limits of one phase (fractions). `trailing: null` means the phase has no trailing rule. */
  const drawdownLimits = z.strictObject({
    /** Daily drawdown, fraction of the day-start equity. */
    daily: ratio.nullable().default(PRESET_LIMITS.daily),
    /** Total drawdown, fraction of the initial balance. */
    total: ratio.nullable().default(PRESET_LIMITS.total),
    /** Trailing drawdown, fraction of the highest equity; null: not part of the rules. */
    trailing: ratio.nullable().default(PRESET_LIMITS.trailing),
  });

  const strategyRisk = z.strictObject({
    /** May this strategy open inside the scalping window (after a recent increase on the market)? */
    allowScalping: z.boolean().default(false),
  });

  const accountRisk = z.strictObject({
    /** Account type, for the market's `maxLeverageByAccount`; else from the Account record. */
    type: z.enum(ACCOUNT_TYPES).optional(),
    /** Phase, to pick the drawdown preset; else from the Account record, else `drawdown.defaultPhase`. */
    phase: z.string().min(1).optional(),
    /** Initial balance (base of the total drawdown); else the Account record, else `payoutBaselineBalance`. */
    initialBalance: positiveDecimal.optional(),
    /** Overrides of the phase preset for this account. */
    limits: drawdownLimits.partial().optional(),
  });

  const D = DEFAULTS;
  /**
   * One rule's block: `enabled` and the rule's own settings, each with its default from DEFAULTS, and
   * `{}` when the block is left out (every setting has a default, which the generic shape cannot show).
   */
  const rule = <S extends z.ZodRawShape>(defaults: { readonly enabled: boolean }, shape: S) =>
    z.strictObject({ enabled: z.boolean().default(defaults.enabled), ...shape }).prefault({} as never);
  /** A rule that holds for `windowMs` after an event. */
  const windowed = (defaults: { readonly enabled: boolean; readonly windowMs: number }) => rule(defaults, { windowMs: durationMs.default(defaults.windowMs) });
  const riskGuardConfig = z.strictObject({
    /** Account not in a trading status, or locked by the managed-capital limit (then only reducing intents). */
    accountStatus: rule(D.accountStatus, {
      /** Deny opens until an Account record (status, type, phase) has been observed. */
      requireAccountRecord: z.boolean().default(D.accountStatus.requireAccountRecord),
    }),
    /** Paused, closed or close-only market, or a scheduled pause close ahead; stale market data. */
    marketStatus: rule(D.marketStatus, {
      /** Deny opens this long before `schedule.nextPauseAt`. */
      pauseLeadMs: durationMs.default(D.marketStatus.pauseLeadMs),
      /** Deny opens while the market snapshot is marked stale by the feed. */
      denyStale: z.boolean().default(D.marketStatus.denyStale),
    }),
    /** Leverage within [minLeverage, min(1/minInitMarginRatio, maxLeverageByAccount[type], maxLeverage)]. */
    leverage: rule(D.leverage, {
      minLeverage: positiveDecimal.default(D.leverage.minLeverage),
      /** An own cap below the market's; null: the market's bounds only. */
      maxLeverage: positiveDecimal.nullable().default(D.leverage.maxLeverage),
    }),
    /** Notional `(amount − fee) × leverage` within the market's maxOpenNotionalLong/Short (0 = no cap). */
    notionalCap: rule(D.notionalCap, {}),
    /** Amount within free balance = balance − margins − reserves of active increase orders. */
    freeBalance: rule(D.freeBalance, {}),
    /** Worst case of the intent plus the open book must keep equity above every drawdown floor. */
    drawdown: rule(D.drawdown, {
      /** Adverse move assumed for a position or intent without a stop (fraction of price). */
      maxAdverseMove: ratio.default(D.drawdown.maxAdverseMove),
      /** Extra distance kept above each floor, fraction of that floor's base (day-start equity, initial, max equity). */
      buffer: ratio.default(D.drawdown.buffer),
      /** Assumed fill beyond a stop trigger (fraction of the trigger). */
      stopSlippage: ratio.default(D.drawdown.stopSlippage),
      /** Spread multiplier assumed on every fill (the scalping multiplier inside the window is 2). */
      spreadMultiplier: positiveDecimal.default(D.drawdown.spreadMultiplier),
      /** An approved open counts until snapshots taken this long after the approval have arrived. */
      pendingSettleMs: durationMs.default(D.drawdown.pendingSettleMs),
      /** Count active entry orders as if they had filled. */
      countPendingEntries: z.boolean().default(D.drawdown.countPendingEntries),
      /** Phase used when the account's phase is unknown. */
      defaultPhase: z.string().min(1).default(D.drawdown.defaultPhase),
      /** Drawdown limits per phase (ENGINE-MODEL presets). */
      phases: z.record(z.string(), drawdownLimits).default(D.drawdown.phases),
    }),
    /** Once today's gain would make it the period's best day above the limit minus `buffer`: only reducing. */
    consistency: rule(D.consistency, {
      /** Subtracted from `consistencyRuleLimit` (0.02: stop at 28% when the limit is 30%). */
      buffer: ratio.default(D.consistency.buffer),
    }),
    /** Hold a close that would realise profit within `windowMs` of the position's last increase. */
    profitWindow: windowed(D.profitWindow),
    /** Deny opening inside the scalping window unless the strategy allows it. */
    scalping: windowed(D.scalping),
    /** At most `max` approved opens per UTC day and account. */
    tradesPerDay: rule(D.tradesPerDay, { max: count.default(D.tradesPerDay.max) }),
    /** At most `max` open positions (plus pending entries) per account. */
    openPositions: rule(D.openPositions, { max: count.default(D.openPositions.max) }),
    /** After `losses` losing trades in a row, no opens for `cooldownMs` after the last one. */
    lossStreak: rule(D.lossStreak, {
      losses: z.number().int().positive('expected at least 1 loss').default(D.lossStreak.losses),
      cooldownMs: durationMs.default(D.lossStreak.cooldownMs),
    }),
    /** Flatten and halt until the next UTC day. */
    killSwitch: rule(D.killSwitch, {
      /** Trip when equity − floor ≤ share × (floor base − floor), for any drawdown floor. */
      share: ratio.default(D.killSwitch.share),
      /** Also trip when the open book's worst case no longer fits above a floor. */
      onExposureBreach: z.boolean().default(D.killSwitch.onExposureBreach),
    }),
    /** Per strategy name. */
    strategies: z.record(z.string(), strategyRisk).default(D.strategies),
    /** Per account id. */
    accounts: z.record(z.string(), accountRisk).default(D.accounts),
  });
  return { drawdownLimits, strategyRisk, accountRisk, riskGuardConfig };
}

let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = (): ReturnType<typeof buildSchemas> => (built ??= buildSchemas());

// Exported as `z.lazy`: embedding them (the run configuration's `risk`, the JSON Schemas) and parsing
// with them work as before, and `.unwrap()` gives the object schema itself (its `shape`, `extend`).

/** Drawdown limits of one phase (fractions). `trailing: null` means the phase has no trailing rule. */
export const DrawdownLimitsSchema = z.lazy(() => schemas().drawdownLimits);
export type DrawdownLimits = z.output<typeof DrawdownLimitsSchema>;
export const StrategyRiskSchema = z.lazy(() => schemas().strategyRisk);
export type StrategyRiskConfig = z.output<typeof StrategyRiskSchema>;
export const AccountRiskSchema = z.lazy(() => schemas().accountRisk);
export type AccountRiskConfig = z.output<typeof AccountRiskSchema>;
export const RiskGuardConfigSchema = z.lazy(() => schemas().riskGuardConfig);

export type RiskGuardConfig = z.output<typeof RiskGuardConfigSchema>;
export type RiskGuardConfigInput = z.input<typeof RiskGuardConfigSchema>;

/**
 * Validate a configuration object; the first problems are reported as a ConfigError naming the dotted
 * key (prefixed with `at`, e.g. `risk`) and what was expected.
 */
export function parseRiskGuardConfig(input: unknown, at = 'risk', file?: string): RiskGuardConfig {
  const result = RiskGuardConfigSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [at, ...issue.path.map(String)].filter((p) => p !== '').join('.');
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : '';
  throw new ConfigError(path, `${issue.message}${more}`, file === undefined ? {} : { file });
}

export const DEFAULT_RISK_GUARD_CONFIG: RiskGuardConfig = DEFAULTS;
