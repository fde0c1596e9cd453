/**
 * The engine façade: what the sandbox server, the backtester and tests drive. Time and prices come in
 * from the caller; `exchangeFor(userId)` gives the `Exchange` port (a `LocalExchange`) acting as that user.
 */
import type { Decimal } from 'decimal.js';
import type { Account, AccountStatus, Market, RiskStatus } from '../api/types.js';
import { EngineCore } from './core.js';
import { LocalExchange, type LocalExchangeOptions } from './local-exchange.js';
import { marketFor } from './reads.js';
import type { AccountSpec, EngineAccountFigures, EngineConfig, EngineListener, MarketFlags, MarketSpec } from './types.js';
import { accountView, marketView, riskStatusView } from './views.js';

export class Engine {
  readonly #core: EngineCore;

  /** `config.startMs` (default 2024-01-01Z), `config.seed` (default `propbot`), `config.presets` overrides. */
  constructor(config: Partial<EngineConfig> = {}) {
    this.#core = new EngineCore(config);
  }

  /** Engine time, unix ms. */
  now(): number {
    return this.#core.now;
  }

  /** Add a market from a preset (default by category); `spec.price` sets the first index price. */
  addMarket(spec: MarketSpec): Market {
    const m = this.#core.addMarket(spec);
    return marketView(m, { now: this.#core.now });
  }

  /** Register a user (a caller of `exchangeFor`); returns its id (seeded when not given). */
  addUser(userId?: string): string {
    return this.#core.addUser(userId);
  }

  /** Open an account (the user is registered if new); raises `buy_challenge` for `real` accounts. */
  openAccount(spec: AccountSpec): Account {
    return accountView(this.#core.openAccount(spec));
  }

  /** A time step without a price: funding, schedules, day rollover, then rule checks. */
  advanceTo(ms: number): void {
    this.#core.advanceTo(ms);
  }

  /** `advanceTo(ms)`, then the price applies: liquidations, triggers in creation order, rule failures. */
  setIndexPrice(marketId: string, price: Decimal, ms: number): void {
    this.#core.setIndexPrice(marketId, price, ms);
  }

  /**
   * As `setIndexPrice` with the price as an fp9 integer (price × 10^9), for replays that already hold
   * integers; skips the Decimal conversion of the hot path.
   */
  setIndexPriceFp9(marketId: string, priceFp9: bigint, ms: number): void {
    const m = this.#core.markets.get(marketId);
    if (!m) throw new RangeError(`setIndexPriceFp9: no market ${JSON.stringify(marketId)}`);
    if (priceFp9 <= 0n) throw new RangeError(`setIndexPriceFp9: price must be above 0, got ${priceFp9}`);
    this.#core.setIndexPriceRaw(m, priceFp9, ms);
  }

  setMarketFlags(marketId: string, flags: Partial<MarketFlags>): void {
    this.#core.setMarketFlags(marketId, flags);
  }

  setAccountStatus(accountId: string, status: AccountStatus): void {
    this.#core.setAccountStatus(accountId, status);
  }

  /** The Exchange port acting as `userId` (API-key caller with `viaApiKey`). */
  exchangeFor(userId: string, options?: LocalExchangeOptions): LocalExchange {
    return new LocalExchange(this.#core, userId, options);
  }

  marketByAsset(asset: string): Market | undefined {
    const m = this.#core.byAsset.get(asset);
    return m ? marketFor(this.#core, m, undefined, undefined) : undefined;
  }

  /** The account record as it stands now; undefined when unknown. */
  getAccount(accountId: string): Account | undefined {
    const a = this.#core.accounts.get(accountId);
    return a ? accountView(a) : undefined;
  }

  /** Ids of the accounts of a user, in opening order. */
  accountsOf(userId: string): string[] {
    return this.#core.accountList.filter((a) => a.userId === userId).map((a) => a.id);
  }

  /** Risk status without access checks (reports, recorders). */
  riskStatus(accountId: string): RiskStatus | undefined {
    const a = this.#core.accounts.get(accountId);
    return a ? riskStatusView(a) : undefined;
  }

  /** The account's equity (balance + unrealised pnl), fp9; undefined when unknown. One read, nothing built. */
  accountEquity(accountId: string): bigint | undefined {
    const a = this.#core.accounts.get(accountId);
    return a ? a.balance + a.upnl : undefined;
  }

  /** The account's highest equity so far (the trailing drawdown's base), fp9; null before its first trade, undefined when unknown. */
  accountMaxEquity(accountId: string): bigint | null | undefined {
    return this.#core.accounts.get(accountId)?.maxEquity;
  }

  /** The account's money figures and floors as the rules judge them; undefined when unknown. */
  accountFigures(accountId: string): EngineAccountFigures | undefined {
    const a = this.#core.accounts.get(accountId);
    if (!a) return undefined;
    const exposure = new Map<string, bigint>();
    for (const p of a.positions) {
      const key = `${p.market.asset}:${p.direction}`;
      exposure.set(key, (exposure.get(key) ?? 0n) + p.notional);
    }
    return {
      equity: a.balance + a.upnl,
      balance: a.balance,
      margin: a.margin,
      reserved: a.reserved,
      freeBalance: a.balance - a.margin - a.reserved,
      dayStartEquity: a.dayStartEquity,
      dailyFloor: a.dailyFloor,
      totalFloor: a.totalFloor,
      trailingFloor: a.trailingFloor,
      exposure,
    };
  }

  /** Subscribe to order, position and account events; returns the unsubscribe function. */
  onEvent(listener: EngineListener): () => void {
    this.#core.listeners.push(listener);
    return () => {
      const i = this.#core.listeners.indexOf(listener);
      if (i >= 0) this.#core.listeners.splice(i, 1);
    };
  }
}
