/**
 * The engine façade's public shapes: its configuration, what a market and an account are created from,
 * and the events it publishes.
 */
import type { Decimal } from 'decimal.js';
import type {
  AccountEvent,
  AccountType,
  MarketCategory,
  Order,
  PositionEvent,
} from '../api/types.js';
import type { MarketPreset, PhasePreset, PresetOverrides, WeeklyBreak } from './presets.js';

export interface EngineConfig {
  /** Engine time at creation, unix ms. Default 2024-01-01T00:00:00Z. */
  startMs: number;
  /** Seed of every id the engine hands out (same seed and inputs → same ids). Default `propbot`. */
  seed: string;
  /** Overrides merged into `ENGINE_PRESETS` (markets, phases, account, limits). */
  presets: PresetOverrides;
}

export interface MarketSpec {
  /** Base asset ticker (`BTC`); unique among the engine's markets. */
  baseAsset: string;
  /** Preset name; default the category (`crypto` or `rwa`). */
  preset?: string;
  /** Default `crypto` (or the preset's). */
  category?: MarketCategory;
  /** Initial index price; without one the market has no price until `setIndexPrice`. */
  price?: Decimal;
  /** Market id; default a seeded UUID. */
  id?: string;
  name?: string;
  description?: string;
  quoteAsset?: string;
  priority?: number | null;
  tags?: string[];
  /** Weekly breaks; `null` trades around the clock; omitted: the preset's. */
  schedule?: WeeklyBreak[] | null;
  /** Field overrides of the preset for this market. */
  overrides?: Partial<MarketPreset>;
}

export interface AccountSpec {
  userId: string;
  accountId?: string;
  type: AccountType;
  /** Phase name (a key of the phase presets); default by type (`real` → `active_evaluation`). */
  phase?: string;
  initialBalance: Decimal;
  /** Whether API-key requests may act on the account. Default true. */
  apiTrading?: boolean;
  /** Category the account may trade; omitted: both. */
  category?: MarketCategory;
  /** Overrides of the phase's rules for this account (kept across phases). */
  rules?: Partial<PhasePreset>;
  /** `buy_challenge` payload amount; default the preset's price ratio × initial balance. */
  pricePaid?: Decimal;
  provider?: string;
}

/**
 * An account's figures as the engine holds them, fp9 integers: what the challenge rules judge. For
 * cross-checks (the guard's view against the engine's) and reports; the API's reads give the same
 * numbers as strings.
 */
export interface EngineAccountFigures {
  readonly equity: bigint;
  readonly balance: bigint;
  /** Σ margin of open positions. */
  readonly margin: bigint;
  /** Σ reserves of active increase orders. */
  readonly reserved: bigint;
  readonly freeBalance: bigint;
  readonly dayStartEquity: bigint;
  /** Equity below these fails the account; null when the phase has no such rule. */
  readonly dailyFloor: bigint | null;
  readonly totalFloor: bigint | null;
  readonly trailingFloor: bigint | null;
  /** Open notional per `asset:direction`. */
  readonly exposure: ReadonlyMap<string, bigint>;
}

export interface MarketFlags {
  isPaused: boolean;
  isCloseOnly: boolean;
  isClosed: boolean;
  isZeroSpread: boolean;
}

/** What the engine publishes to `onEvent` listeners, in the order things happen. */
export type EngineEvent =
  /** An order was created or changed status. */
  | { kind: 'order'; at: number; order: Order }
  /** A position event (every one, `payFunding` included). */
  | { kind: 'position'; at: number; event: PositionEvent }
  /** An account lifecycle event (also readable through `listAccountEvents`). */
  | { kind: 'account'; at: number; event: AccountEvent };

export type EngineListener = (event: EngineEvent) => void;
