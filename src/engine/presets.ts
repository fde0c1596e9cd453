/**
 * Every number the local engine uses lives here, as a named preset (ENGINE-MODEL.md defaults). Nothing
 * numeric about fees, spreads, funding, margins, windows or challenge rules is written in the engine
 * code itself: change a preset (or pass an override) to change the model.
 *
 * Values are decimal strings (exact), durations are milliseconds, percentages of the challenge rules are
 * percents as the Account record shows them (`'5'` = 5%), market ratios are fractions (`'0.00008'` = 0.008%).
 */
import type { AccountType, MarketCategory } from '../api/types.js';
import { ACCOUNT_TYPES, MARKET_CATEGORIES } from '../api/types.js';
import { ConfigError } from '../core/errors.js';
import { parseRaw } from './fixed.js';

/** A weekly break: from `start` to `end`, each as day of week (0 = Sunday, UTC) and `HH:MM`. */
export interface WeeklyBreak {
  startDay: number;
  startTime: string;
  endDay: number;
  endTime: string;
}

export interface MarketPreset {
  category: MarketCategory;
  quoteAsset: string;
  settlementToken: string;
  /** Pricing model label of `config.type`. */
  type: string;
  /** Trading fee rate per side (fraction). */
  fee: string;
  /** Spread fraction charged on a fill before the scalping multiplier. */
  vpiSpread: string;
  /** Largest spread fraction, after the multiplier. */
  spreadLimit: string;
  vpiCoefficientLong: string;
  vpiCoefficientShort: string;
  /** Quote depth per side; `0` = no impact and no depth limit. */
  vpiMarketDepthLong: string;
  vpiMarketDepthShort: string;
  maxPriceImpact: string;
  maxPriceSpread: string;
  /** When true a fill whose notional exceeds the side's depth fails with `order_exceeds_market_depth`. */
  rejectAboveMarketDepth: boolean;
  maintenanceMarginRatio: string;
  initMarginRatio: string;
  /** Smallest initial margin ratio: caps leverage at its inverse. */
  minInitMarginRatio: string;
  /** Lowest leverage an increase order may ask for. */
  minLeverage: string;
  /** Highest leverage by account type. */
  maxLeverageByAccount: Record<AccountType, string>;
  /** Cap on one account's open notional per side on the market; `0` = no cap. */
  maxOpenNotionalLong: string;
  maxOpenNotionalShort: string;
  /** A stop trigger closer to the price than this fraction is pushed out to it. */
  minStopTriggerDistanceRatio: string;
  /** Smallest notional of a fill (quote); below it execution fails with `order_below_min_notional`. */
  minNotional: string;
  /** Funding rate per interval (positive: longs pay shorts). */
  fundingRate: string;
  /** Funding interval, settled at multiples of it since the unix epoch (8 h → 00:00, 08:00, 16:00 UTC). */
  fundingIntervalMs: number;
  /** Scalping window length after every increase. */
  scalpingWindowMs: number;
  /** Spread multiplier inside the scalping window. */
  scalpingMultiplier: string;
  /** Spread multiplier outside it. */
  regularMultiplier: string;
  /** A close within this long of the last open/increase cannot realise more than the pnl at that moment. */
  profitAdjustmentWindowMs: number;
  /** Weekly breaks (UTC); null: trades around the clock. */
  schedule: WeeklyBreak[] | null;
  /**
   * Force-close open positions when a scheduled break starts (`closeReason` / cancel `reason`
   * `weekly_session_risk_close`); their close orders are cancelled first. Entry orders stay.
   */
  closeOnWeeklyBreak: boolean;
  priority: number | null;
  tags: string[];
}

export interface PhasePreset {
  /** Percent of initial balance; null: no target in this phase. */
  profitTarget: string | null;
  /** Percent of day-start equity. */
  maxDailyDrawdown: string | null;
  /** Percent of initial balance. */
  maxTotalDrawdown: string | null;
  /** Percent of the highest equity; null: no trailing rule. */
  maxTrailingTotalDrawdown: string | null;
  /** Profitable days needed before the target moves the account on. */
  minTradingDays: number | null;
  /** Percent of the initial balance a day's equity must grow by to count as profitable. */
  profitableDayThreshold: string;
  /** Largest share of period profit one day may make (percent); null: no consistency rule. */
  consistencyLimit: string | null;
  /** Withdrawal period length in days; null: no periods in this phase. */
  withdrawalPeriodDays: number | null;
  /** Highest leverage in this phase; null: the market's cap by account type only. */
  maxLeverage: string | null;
  /** Phase the account moves to on reaching the target; null: stays. */
  next: string | null;
  profitSplitPercent: number;
}

export interface AccountPreset {
  /** Price of a challenge as a fraction of its initial balance (payload of `buy_challenge`). */
  challengePriceRatio: string;
  /** Payment rail shown in `buy_challenge` when the caller names none. */
  provider: string;
  /** Phase a new account starts in, by type. */
  initialPhase: Record<AccountType, string>;
}

export interface EngineLimits {
  /** Idempotency replay window of `POST /orders`. */
  orderIdempotencyMs: number;
  /** Idempotency replay window of both close-alls. */
  closeAllIdempotencyMs: number;
  /** Default equity-history window. */
  equityHistoryDefaultMs: number;
  /** Equity-history sampling step. */
  equitySampleMs: number;
  /** Length of a trading day (starts at 00:00 UTC). */
  dayMs: number;
  /** Largest chart bucket range, in candles. */
  maxChartBucketCandles: number;
  /** Events kept per bucket side. */
  chartBucketSideEvents: number;
  /** Page size bounds: [default, max] for order history / account events, and for chart events. */
  pageDefault: number;
  pageMax: number;
  chartPageMax: number;
}

export interface EnginePresets {
  markets: Record<string, MarketPreset>;
  phases: Record<string, PhasePreset>;
  account: AccountPreset;
  limits: EngineLimits;
}

const CRYPTO: MarketPreset = {
  category: 'crypto',
  quoteAsset: 'USD',
  settlementToken: 'USDC',
  type: 'perpetual',
  fee: '0.00008',
  vpiSpread: '0.0001',
  spreadLimit: '0.001',
  vpiCoefficientLong: '0.0005',
  vpiCoefficientShort: '0.0005',
  vpiMarketDepthLong: '100000000',
  vpiMarketDepthShort: '100000000',
  maxPriceImpact: '0.005',
  maxPriceSpread: '0.01',
  rejectAboveMarketDepth: true,
  maintenanceMarginRatio: '0.05',
  initMarginRatio: '0.2',
  minInitMarginRatio: '0.2',
  minLeverage: '1',
  maxLeverageByAccount: { demo: '5', real: '5', tournament: '5' },
  maxOpenNotionalLong: '0',
  maxOpenNotionalShort: '0',
  minStopTriggerDistanceRatio: '0.001',
  minNotional: '1',
  fundingRate: '0.0003',
  fundingIntervalMs: 8 * 3_600_000,
  scalpingWindowMs: 3_600_000,
  scalpingMultiplier: '2',
  regularMultiplier: '1',
  profitAdjustmentWindowMs: 60_000,
  schedule: null,
  closeOnWeeklyBreak: false,
  priority: null,
  tags: ['crypto'],
};

const RWA: MarketPreset = {
  ...CRYPTO,
  category: 'rwa',
  type: 'rwa',
  fee: '0.000035',
  vpiSpread: '0.00005',
  maintenanceMarginRatio: '0.025',
  initMarginRatio: '0.1',
  minInitMarginRatio: '0.1',
  maxLeverageByAccount: { demo: '10', real: '10', tournament: '10' },
  fundingRate: '0.0001',
  schedule: [{ startDay: 5, startTime: '21:00', endDay: 0, endTime: '21:00' }],
  tags: ['rwa'],
};

/** No fee, spread, impact or funding, leverage 1 allowed: fills at the index price exactly (backtests). */
const ZERO_COST: MarketPreset = {
  ...CRYPTO,
  type: 'zero-cost',
  fee: '0',
  vpiSpread: '0',
  spreadLimit: '0',
  vpiCoefficientLong: '0',
  vpiCoefficientShort: '0',
  vpiMarketDepthLong: '0',
  vpiMarketDepthShort: '0',
  maxPriceImpact: '0',
  rejectAboveMarketDepth: false,
  minLeverage: '1',
  minStopTriggerDistanceRatio: '0',
  minNotional: '0',
  fundingRate: '0',
  tags: ['zero-cost'],
};

const EVALUATION: PhasePreset = {
  profitTarget: '5',
  maxDailyDrawdown: '5',
  maxTotalDrawdown: '10',
  maxTrailingTotalDrawdown: null,
  minTradingDays: 3,
  profitableDayThreshold: '0.5',
  consistencyLimit: null,
  withdrawalPeriodDays: null,
  maxLeverage: null,
  next: 'active_verification',
  profitSplitPercent: 0,
};

export const ENGINE_PRESETS: EnginePresets = {
  markets: { crypto: CRYPTO, rwa: RWA, 'zero-cost': ZERO_COST },
  phases: {
    active_evaluation: EVALUATION,
    active_verification: { ...EVALUATION, profitTarget: '8', minTradingDays: 5, next: 'funded' },
    funded: {
      ...EVALUATION,
      profitTarget: null,
      minTradingDays: null,
      consistencyLimit: '30',
      withdrawalPeriodDays: 14,
      next: null,
      profitSplitPercent: 80,
    },
    funded_success: {
      ...EVALUATION,
      profitTarget: null,
      minTradingDays: null,
      consistencyLimit: '30',
      withdrawalPeriodDays: 14,
      next: null,
      profitSplitPercent: 90,
    },
    /** Demo and tournament accounts: no target, the usual drawdown rules. */
    demo: { ...EVALUATION, profitTarget: null, minTradingDays: null, next: null },
  },
  account: {
    challengePriceRatio: '0.005',
    provider: 'engine',
    initialPhase: { real: 'active_evaluation', demo: 'demo', tournament: 'demo' },
  },
  limits: {
    orderIdempotencyMs: 3_600_000,
    closeAllIdempotencyMs: 60_000,
    equityHistoryDefaultMs: 5 * 86_400_000,
    equitySampleMs: 60_000,
    dayMs: 86_400_000,
    maxChartBucketCandles: 350,
    chartBucketSideEvents: 5,
    pageDefault: 20,
    pageMax: 100,
    chartPageMax: 1000,
  },
};

/** Presets with partial overrides merged in (each market / phase preset is merged field by field). */
export interface PresetOverrides {
  markets?: Record<string, Partial<MarketPreset>>;
  phases?: Record<string, Partial<PhasePreset>>;
  account?: Partial<AccountPreset>;
  limits?: Partial<EngineLimits>;
}

/**
 * `base` with `overrides` laid over it, as `{ ...base, ...overrides }` gives it for every phase key,
 * built as one object literal. An account's rules are read at every price step, and V8 (Node 20)
 * gives each object a spread builds a map of its own: the engine's compiled rule checks met a new map
 * with every engine, and were thrown away and compiled again run after run of a sweep.
 */
export function phaseRules(base: PhasePreset, overrides: Partial<PhasePreset>): PhasePreset {
  const pick = <K extends keyof PhasePreset>(k: K): PhasePreset[K] => (Object.hasOwn(overrides, k) ? (overrides[k] as PhasePreset[K]) : base[k]);
  return {
    profitTarget: pick('profitTarget'),
    maxDailyDrawdown: pick('maxDailyDrawdown'),
    maxTotalDrawdown: pick('maxTotalDrawdown'),
    maxTrailingTotalDrawdown: pick('maxTrailingTotalDrawdown'),
    minTradingDays: pick('minTradingDays'),
    profitableDayThreshold: pick('profitableDayThreshold'),
    consistencyLimit: pick('consistencyLimit'),
    withdrawalPeriodDays: pick('withdrawalPeriodDays'),
    maxLeverage: pick('maxLeverage'),
    next: pick('next'),
    profitSplitPercent: pick('profitSplitPercent'),
  };
}

export function mergePresets(base: EnginePresets, over: PresetOverrides | undefined): EnginePresets {
  if (!over) return base;
  const markets: Record<string, MarketPreset> = { ...base.markets };
  for (const [name, m] of Object.entries(over.markets ?? {})) {
    const parent = base.markets[name] ?? base.markets['crypto']!;
    markets[name] = { ...parent, ...m };
  }
  const phases: Record<string, PhasePreset> = { ...base.phases };
  for (const [name, p] of Object.entries(over.phases ?? {})) {
    const parent = base.phases[name] ?? base.phases['demo']!;
    phases[name] = { ...parent, ...p };
  }
  return {
    markets,
    phases,
    account: { ...base.account, ...over.account },
    limits: { ...base.limits, ...over.limits },
  };
}

const MARKET_DECIMALS = [
  'fee', 'vpiSpread', 'spreadLimit', 'vpiCoefficientLong', 'vpiCoefficientShort', 'vpiMarketDepthLong',
  'vpiMarketDepthShort', 'maxPriceImpact', 'maxPriceSpread', 'maintenanceMarginRatio', 'initMarginRatio',
  'minInitMarginRatio', 'minLeverage', 'maxOpenNotionalLong', 'maxOpenNotionalShort',
  'minStopTriggerDistanceRatio', 'minNotional', 'fundingRate', 'scalpingMultiplier', 'regularMultiplier',
] as const satisfies readonly (keyof MarketPreset)[];
const MARKET_DURATIONS = ['fundingIntervalMs', 'scalpingWindowMs', 'profitAdjustmentWindowMs'] as const satisfies readonly (keyof MarketPreset)[];
const PHASE_PERCENTS = ['profitTarget', 'maxDailyDrawdown', 'maxTotalDrawdown', 'maxTrailingTotalDrawdown', 'profitableDayThreshold', 'consistencyLimit', 'maxLeverage'] as const satisfies readonly (keyof PhasePreset)[];

/** The decimal rules of a phase (preset or an account's overrides merged in), each named under `at`. */
export function validatePhaseNumbers(ph: PhasePreset, at: string): void {
  for (const k of PHASE_PERCENTS) {
    const v = ph[k];
    if (v !== null && parseRaw(String(v), `${at}.${k}`) < 0n) throw new ConfigError(`${at}.${k}`, `must not be negative, got ${v}`);
  }
}

/** Check every preset up front, so a bad number fails at construction with its key, not mid-replay. */
export function validatePresets(p: EnginePresets): void {
  for (const [name, m] of Object.entries(p.markets)) {
    const at = `markets.${name}`;
    if (!(MARKET_CATEGORIES as readonly string[]).includes(m.category)) throw new ConfigError(`${at}.category`, `expected crypto or rwa, got ${JSON.stringify(m.category)}`);
    for (const k of MARKET_DECIMALS) {
      if (parseRaw(String(m[k]), `${at}.${k}`) < 0n) throw new ConfigError(`${at}.${k}`, `must not be negative, got ${m[k]}`);
    }
    for (const t of ACCOUNT_TYPES) parseRaw(String(m.maxLeverageByAccount[t]), `${at}.maxLeverageByAccount.${t}`);
    for (const k of MARKET_DURATIONS) {
      if (!Number.isSafeInteger(m[k]) || m[k] < 0 || (k === 'fundingIntervalMs' && m[k] === 0)) {
        throw new ConfigError(`${at}.${k}`, `expected milliseconds as a positive integer, got ${m[k]}`);
      }
    }
  }
  for (const [name, ph] of Object.entries(p.phases)) {
    const at = `phases.${name}`;
    validatePhaseNumbers(ph, at);
    if (ph.next !== null && !p.phases[ph.next]) throw new ConfigError(`${at}.next`, `no phase ${JSON.stringify(ph.next)}; have ${Object.keys(p.phases).join(', ')}`);
  }
  for (const t of ACCOUNT_TYPES) {
    const ph = p.account.initialPhase[t];
    if (!p.phases[ph]) throw new ConfigError(`account.initialPhase.${t}`, `no phase ${JSON.stringify(ph)}`);
  }
  for (const [k, v] of Object.entries(p.limits)) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new ConfigError(`limits.${k}`, `expected a positive integer, got ${v}`);
  }
}

