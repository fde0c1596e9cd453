/**
 * Drives the engine from the sandbox clock: applies every price point whose time has come, in time
 * order across markets, then advances the engine to now. Called before each API request and on the
 * server's timer, so the engine never sees time go backwards and a request always meets the prices of
 * its moment.
 */
import type { Decimal } from 'decimal.js';
import type { PricePoint, PriceTrack } from './price-tracks.js';

/** The part of the engine the feed drives. */
export interface FeedTarget {
  now(): number;
  advanceTo(ms: number): void;
  setIndexPrice(marketId: string, price: Decimal, ms: number): void;
}

export interface FeedMarket {
  marketId: string;
  track: PriceTrack;
}

export class MarketFeed {
  readonly #engine: FeedTarget;
  readonly #markets: readonly FeedMarket[];
  readonly #onError: (err: unknown) => void;

  constructor(engine: FeedTarget, markets: readonly FeedMarket[], onError: (err: unknown) => void) {
    this.#engine = engine;
    this.#markets = markets;
    this.#onError = onError;
  }

  /** Apply every point up to `nowMs`, then move the engine to `nowMs`. */
  syncTo(nowMs: number): void {
    const points: Array<PricePoint & { marketId: string; order: number }> = [];
    this.#markets.forEach((m, order) => {
      for (const p of m.track.pointsUntil(nowMs)) points.push({ ...p, marketId: m.marketId, order });
    });
    points.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
    for (const p of points) {
      const at = Math.max(p.atMs, this.#engine.now());
      try {
        this.#engine.setIndexPrice(p.marketId, p.price, at);
      } catch (err) {
        this.#onError(err);
      }
    }
    if (nowMs > this.#engine.now()) this.#engine.advanceTo(nowMs);
  }

  /** An operator's price: applied now; a random walk continues from it. */
  setPrice(marketId: string, price: Decimal, nowMs: number): void {
    const market = this.#markets.find((m) => m.marketId === marketId);
    this.syncTo(nowMs);
    this.#engine.setIndexPrice(marketId, price, Math.max(nowMs, this.#engine.now()));
    market?.track.override(price);
  }
}
