/**
 * A strategy held to a trading window: it sees every snapshot and candle from the start of the replay
 * (so its indicators warm up on the data before the window), but what it asks before the window opens
 * or after it closes is dropped before the guard, and at the close it flattens the account once.
 * Research runs (walk-forward slices, warmed-up sweeps) use it; a live run never does.
 */
import { defer, filter, map, merge, take, type Observable } from 'rxjs';
import { CANDLE_PERIOD_MS } from '../feed/types.js';
import { defineStrategy, type Strategy } from './define.js';
import type { OrderIntent } from './intents.js';
import type { LoadedStrategy } from './loader.js';

export interface TradingWindow {
  /** First time (unix ms) an intent may pass. */
  readonly from: number;
  /** Intents at or after this time are dropped; the account is flattened at the first snapshot then. */
  readonly to?: number;
}

/** Milliseconds of history the strategy asks for with these parameters (0 when it declares none). */
export function warmupMs(loaded: Pick<LoadedStrategy, 'strategy' | 'params'>): number {
  const w = loaded.strategy.warmup?.(loaded.params as never);
  if (!w) return 0;
  const ms = CANDLE_PERIOD_MS[w.period];
  if (!Number.isSafeInteger(w.candles) || w.candles < 0 || ms === undefined) {
    throw new RangeError(`strategy ${loaded.strategy.name}: warmup() must return { candles: whole number ≥ 0, period }, got ${JSON.stringify(w)}`);
  }
  return w.candles * ms;
}

/** `loaded` trading only inside `window`, under the same name and version. */
export function withinWindow(loaded: LoadedStrategy, window: TradingWindow): LoadedStrategy {
  const inner = loaded.strategy as Strategy;
  const wrapped = defineStrategy({
    name: inner.name,
    version: inner.version,
    ...(inner.description !== undefined ? { description: inner.description } : {}),
    params: inner.params,
    assets: inner.assets,
    ...(inner.warmup !== undefined ? { warmup: inner.warmup } : {}),
    setup(ctx, params): Observable<OrderIntent> {
      const open = (): boolean => {
        const now = ctx.clock.now();
        return now >= window.from && (window.to === undefined || now < window.to);
      };
      const own = defer(() => inner.setup(ctx, params)).pipe(filter(open));
      if (window.to === undefined) return own;
      const to = window.to;
      // One flatten at the first price at or after the close, so what this window opened does not leak
      // into the next. The next window's strategy subscribes after this one, so on that same price this
      // close_all is judged first, and the executor runs it ahead of any new entry (higher priority).
      const close = merge(...ctx.assets.map((a) => ctx.feed.market$(a))).pipe(
        filter((s) => s.takenAt >= to),
        take(1),
        map(() => ctx.intents.closeAll({ scope: 'account', note: 'trading window closed' })),
      );
      return merge(own, close);
    },
  });
  return { ...loaded, strategy: wrapped as unknown as Strategy };
}
