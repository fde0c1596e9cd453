/**
 * Runs a scripted strategy over real 1-minute BTC candles through the risk guard and the local engine
 * (or, for the baseline, straight to the engine). Each candle becomes a continuous index-price path
 * O → L → H → C (O → H → L → C for a falling candle) in steps of at most `stepRatio`, so triggers fill
 * where the market traded; only the jump from one candle's close to the next candle's open, and missing
 * minutes, are gaps.
 */
import { readFileSync } from 'node:fs';
import type { Decimal } from 'decimal.js';
import { Dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import type { Direction, Position } from '../../src/api/types.js';
import { RiskGuard } from '../../src/risk/index.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { fromRaw, toRaw } from '../../src/risk/fixed.js';
import { sharedFile } from '../data.js';

export const BTC_CSV = sharedFile('binance-btcusdt-1m-2021-04-20_2021-05-20.csv', 'the guard through the real May 2021 crash');

export interface Candle {
  readonly t: number;
  readonly o: bigint;
  readonly h: bigint;
  readonly l: bigint;
  readonly c: bigint;
}

let cache: Candle[] | undefined;
export function loadCandles(): Candle[] {
  if (cache) return cache;
  const lines = readFileSync(BTC_CSV!, 'utf8').trim().split('\n').slice(1);
  cache = lines.map((line) => {
    const [t, o, h, l, c] = line.split(',');
    return { t: Number(t), o: toRaw(new Dec(o!)), h: toRaw(new Dec(h!)), l: toRaw(new Dec(l!)), c: toRaw(new Dec(c!)) };
  });
  return cache;
}

export interface PricePoint {
  readonly at: number;
  readonly price: bigint;
  /** Relative move from the previous point (fp9 fraction). */
  readonly move: bigint;
  /** True when the move is a jump between candles (or across missing minutes), not a traded path. */
  readonly gap: boolean;
}

const UNIT = 1_000_000_000n;
const abs = (x: bigint) => (x < 0n ? -x : x);

/** The index-price path of candles from `from` (inclusive) to `to` (exclusive). */
export function pricePath(from: number, to: number, stepRatio: bigint): PricePoint[] {
  const candles = loadCandles().filter((c) => c.t >= from && c.t < to);
  const out: PricePoint[] = [];
  let prev: bigint | undefined;
  for (const k of candles) {
    const corners = k.c >= k.o ? [k.o, k.l, k.h, k.c] : [k.o, k.h, k.l, k.c];
    const points: bigint[] = [];
    const gapAt = new Set<number>();
    for (let i = 0; i < corners.length; i++) {
      const target = corners[i]!;
      const start = i === 0 ? undefined : corners[i - 1]!;
      if (start === undefined) {
        points.push(target);
        gapAt.add(points.length - 1);
        continue;
      }
      const n = Number((abs(target - start) * UNIT) / (start * stepRatio)) + 1;
      for (let s = 1; s <= n; s++) points.push(start + ((target - start) * BigInt(s)) / BigInt(n));
    }
    points.forEach((p, i) => {
      const at = k.t + Math.floor((i * 60_000) / points.length);
      const move = prev === undefined ? 0n : (abs(p - prev) * UNIT) / prev;
      if (prev === undefined || p !== prev) out.push({ at, price: p, move, gap: gapAt.has(i) });
      prev = p;
    });
  }
  return out;
}

export interface PlanAction {
  /** Minute of the window at which the strategy acts. */
  readonly minute: number;
  readonly kind: 'open' | 'close';
  readonly direction: Direction;
  /** Quote amount in thousands. */
  readonly amountK: number;
  readonly leverage: number;
  /** Stop distance in basis points of the price; undefined: no stop. */
  readonly stopBp: number | undefined;
}

export interface RunResult {
  readonly failed: boolean;
  readonly failureReason: string | null;
  /** The price step at which the account failed. */
  readonly failedAt: PricePoint | undefined;
  readonly approvedOpens: number;
  readonly denied: Record<string, number>;
  readonly venueRefusals: number;
  readonly killSwitchTrips: number;
  /** Largest open notional seen, as a multiple of the initial balance (for the record). */
  readonly maxExposure: number;
  readonly points: number;
}

export interface RunOptions {
  readonly from: number;
  readonly minutes: number;
  readonly plan: readonly PlanAction[];
  /** Without the guard: every action goes straight to the engine. */
  readonly unguarded?: boolean;
  readonly guardConfig?: Record<string, unknown>;
  readonly stepRatio?: bigint;
}

const D = (v: string | number) => new Dec(String(v));

export async function runOverCandles(o: RunOptions): Promise<RunResult> {
  const to = o.from + o.minutes * 60_000;
  const path = pricePath(o.from, to, o.stepRatio ?? 1_000_000n);
  const first = path[0]!;
  const engine = new Engine({ startMs: first.at, seed: `risk-prop-${o.from}` });
  const market = engine.addMarket({ baseAsset: 'BTC', price: fromRaw(first.price) });
  const user = engine.addUser();
  const acc = engine.openAccount({ userId: user, type: 'real', initialBalance: D(100000) });
  const accountId = acc.accountId;
  const ex = engine.exchangeFor(user);
  const guard = new RiskGuard({
    clock: { now: () => engine.now() },
    config: o.guardConfig ?? { strategies: { random: { allowScalping: true } } },
    newId: (() => {
      let n = 0;
      return () => `guard-${++n}`;
    })(),
  });

  let failed = false;
  let failureReason: string | null = null;
  let eventsSinceRefresh = true;
  const trades: { realizedPnl: Decimal; at: number }[] = [];
  engine.onEvent((e) => {
    eventsSinceRefresh = true;
    if (e.kind === 'account' && e.event.eventType === 'challenge_failed') {
      failed = true;
      failureReason = String(e.event.payload['failureReason'] ?? e.event.account.failureReason);
    }
    if (e.kind === 'position' && ['closePosition', 'liquidate', 'forceClose'].includes(e.event.eventName)) {
      trades.push({ realizedPnl: e.event.pnlInEvent, at: e.at });
    }
  });
  const guardIntents: OrderIntent[] = [];
  let killSwitchTrips = 0;
  guard.intents$.subscribe((i) => {
    killSwitchTrips += 1;
    guardIntents.push(i);
  });

  let positions: Position[] = [];
  const refresh = async (): Promise<void> => {
    const now = engine.now();
    positions = await ex.listActivePositions(accountId, 'BTC');
    guard.observePositions({ data: positions, asset: 'BTC', accountId, takenAt: now, stale: false });
    guard.observeOrders({ data: await ex.listActiveOrders(accountId), accountId, takenAt: now, stale: false });
    for (const t of trades.splice(0)) guard.recordTrade({ accountId, ...t });
    eventsSinceRefresh = false;
  };
  // The full market view is costly to build; between minutes only its index price moves, so the
  // snapshot of the minute is reused with the new price (what a poller would see).
  let marketView = engine.marketByAsset('BTC')!;
  let viewMinute = -1;
  const observePrices = (minute: number, price: bigint): void => {
    if (minute !== viewMinute) {
      marketView = engine.marketByAsset('BTC')!;
      viewMinute = minute;
    }
    const indexPrice = fromRaw(price);
    const m = { ...marketView, state: { ...marketView.state, indexPrice } };
    guard.observeMarket({ data: m, asset: 'BTC', marketId: m.id, price: indexPrice, takenAt: engine.now(), stale: false });
    guard.observeRisk({ data: engine.riskStatus(accountId)!, accountId, takenAt: engine.now(), stale: false });
  };

  let approvedOpens = 0;
  let venueRefusals = 0;
  const denied: Record<string, number> = {};
  let seq = 0;
  const submit = async (intent: OrderIntent): Promise<void> => {
    if (!o.unguarded) {
      const d = guard.check(intent);
      if (d.verdict === 'denied') {
        denied[d.code] = (denied[d.code] ?? 0) + 1;
        return;
      }
    }
    try {
      if (intent.kind === 'open') {
        approvedOpens += 1;
        await ex.createOrder({
          accountId,
          marketId: market.id,
          type: 'market',
          direction: intent.direction,
          amount: intent.sizing.kind === 'quote' ? intent.sizing.amount : intent.sizing.maxAmount,
          leverage: intent.leverage,
          stopTriggerPrice: intent.stopLoss ?? null,
        });
      } else if (intent.kind === 'close') {
        const p = positions.find((x) => x.direction === intent.direction);
        if (p === undefined) return;
        await ex.createOrder({ accountId, marketId: market.id, type: 'take', direction: p.direction, positionId: p.idx, amount: p.size, triggerPrice: D(0) });
      } else if (intent.kind === 'close_all') {
        await ex.closeAllAccount(accountId);
      }
    } catch {
      venueRefusals += 1;
    }
    await refresh();
  };

  const byMinute = new Map<number, PlanAction[]>();
  for (const a of o.plan) byMinute.set(a.minute, [...(byMinute.get(a.minute) ?? []), a]);

  await refresh();
  let failedAt: PricePoint | undefined;
  let lastMinute = -1;
  let maxExposure = 0;
  for (const point of path) {
    engine.setIndexPriceFp9(market.id, point.price, point.at);
    if (failed) {
      failedAt = point;
      break;
    }
    const minute = Math.floor((point.at - o.from) / 60_000);
    if (eventsSinceRefresh) await refresh();
    if (!o.unguarded) observePrices(minute, point.price);
    for (const i of guardIntents.splice(0)) await submit(i);
    if (minute !== lastMinute) {
      lastMinute = minute;
      for (const a of byMinute.get(minute) ?? []) {
        const price = fromRaw(point.price);
        const stop =
          a.stopBp === undefined
            ? undefined
            : price.times(a.direction === 'long' ? 10_000 - a.stopBp : 10_000 + a.stopBp).div(10_000).toDecimalPlaces(2);
        const base = { id: `s-${++seq}`, strategy: 'random', accountId, asset: 'BTC', createdAt: engine.now() };
        await submit(
          a.kind === 'open'
            ? {
                ...base,
                kind: 'open',
                direction: a.direction,
                entry: { type: 'market' },
                sizing: { kind: 'quote', amount: D(a.amountK * 1000) },
                leverage: D(a.leverage),
                ...(stop !== undefined ? { stopLoss: stop } : {}),
              }
            : { ...base, kind: 'close', direction: a.direction },
        );
      }
      const exposure = positions.reduce((s, p) => s + Number(p.notional.toFixed(0)), 0) / 100000;
      if (exposure > maxExposure) maxExposure = exposure;
    }
    if (failed) {
      failedAt = point;
      break;
    }
  }
  guard.close();
  return { failed, failureReason, failedAt, approvedOpens, denied, venueRefusals, killSwitchTrips, maxExposure, points: path.length };
}
