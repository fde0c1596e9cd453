import { describe, expect, it } from 'vitest';
import { Subject, type Observable } from 'rxjs';
import { VirtualClock } from '../../src/core/clock.js';
import type {
  AccountEventsSnapshot,
  MarketFeed,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
} from '../../src/feed/types.js';
import { RiskGuard, type GuardLogger } from '../../src/risk/index.js';
import { ceilDiv, floorDiv, fmt, toRaw } from '../../src/risk/fixed.js';
import {
  account,
  ACCOUNT,
  D,
  market,
  marketSnap,
  only,
  openIntent,
  ordersSnap,
  position,
  positionsSnap,
  riskSnap,
  riskStatus,
  T0,
} from './builders.js';

/** A feed whose streams the test pushes into: the MarketFeed contract over plain Subjects. */
class PushFeed implements MarketFeed {
  readonly markets = new Map<string, Subject<MarketSnapshot>>();
  readonly risk = new Subject<RiskSnapshot>();
  readonly positions = new Subject<PositionsSnapshot>();
  readonly orders = new Subject<OrdersSnapshot>();
  readonly events = new Subject<AccountEventsSnapshot>();
  market$(asset: string): Observable<MarketSnapshot> {
    let s = this.markets.get(asset);
    if (!s) this.markets.set(asset, (s = new Subject()));
    return s;
  }
  risk$(): Observable<RiskSnapshot> {
    return this.risk;
  }
  positions$(): Observable<PositionsSnapshot> {
    return this.positions;
  }
  orders$(): Observable<OrdersSnapshot> {
    return this.orders;
  }
  accountEvents$(): Observable<AccountEventsSnapshot> {
    return this.events;
  }
}

describe('RiskGuard wiring', () => {
  it('connect() feeds the guard from a MarketFeed, and unsubscribing stops it', () => {
    const clock = new VirtualClock(T0);
    const guard = new RiskGuard({ clock, config: only('accountStatus', 'marketStatus', 'drawdown') });
    const feed = new PushFeed();
    const sub = guard.connect(feed, { accountId: ACCOUNT, assets: ['BTC'] });
    expect(guard.check(openIntent())).toMatchObject({ code: 'market_unknown' });
    feed.market$('BTC');
    feed.markets.get('BTC')!.next(marketSnap(market()));
    expect(guard.check(openIntent())).toMatchObject({ code: 'no_risk_status' });
    feed.risk.next(riskSnap(riskStatus()));
    feed.positions.next(positionsSnap([position()]));
    feed.orders.next(ordersSnap([]));
    expect(guard.check(openIntent()).verdict).toBe('approved');
    const acc = account({ status: 'failed' });
    feed.events.next({ data: [{ eventType: 'challenge_failed', payload: {}, id: 'e1', accountId: ACCOUNT, createdAt: new Date(T0), account: acc }], takenAt: T0, stale: false });
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    sub.unsubscribe();
    feed.events.next({ data: [{ eventType: 'x', payload: {}, id: 'e2', accountId: ACCOUNT, createdAt: new Date(T0), account: account() }], takenAt: T0, stale: false });
    expect(guard.state(ACCOUNT)).toBe('HALTED');
  });

  it('logs denials at warn with the code, and state changes at info', () => {
    const lines: { level: string; obj: object; msg: string }[] = [];
    const logger: GuardLogger = {
      info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
      warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
      debug: (obj, msg) => lines.push({ level: 'debug', obj, msg }),
    };
    const guard = new RiskGuard({ clock: new VirtualClock(T0), logger, config: only('leverage') });
    guard.observeMarket(marketSnap(market()));
    guard.check(openIntent({ leverage: 9 }));
    guard.halt(ACCOUNT, 'operator');
    expect(lines.find((l) => l.level === 'warn')).toMatchObject({ obj: { code: 'leverage_above_max', rule: 'leverage' } });
    expect(lines.find((l) => l.level === 'info')?.msg).toContain('HALTED');
  });

  it('keeps accounts apart', () => {
    const guard = new RiskGuard({ clock: new VirtualClock(T0), config: only() });
    guard.halt(ACCOUNT, 'operator');
    expect(guard.check({ ...openIntent(), accountId: 'other' }).verdict).toBe('approved');
    expect(guard.check(openIntent()).verdict).toBe('denied');
  });
});

describe('RiskGuard.accountView', () => {
  it('reports equity and the headroom above each drawdown floor of the phase', () => {
    const guard = new RiskGuard({ clock: new VirtualClock(T0) });
    expect(guard.accountView(ACCOUNT)).toBeUndefined();
    guard.observeRisk(riskSnap(riskStatus({ currentEquity: D(99000), currentBalance: D(99000), dayStartEquity: D(100000) })));
    const view = guard.accountView(ACCOUNT)!;
    expect(view.state).toBe('ACTIVE');
    expect(view.equity.toFixed()).toBe('99000');
    const byRule = Object.fromEntries(view.floors.map((f) => [f.rule, f]));
    // daily 5% of day-start equity 100000, total 10% of the initial balance 100000 (the presets).
    expect(byRule['daily']?.floor.toFixed()).toBe('95000');
    expect(byRule['daily']?.headroom.toFixed()).toBe('4000');
    expect(byRule['total']?.floor.toFixed()).toBe('90000');
    expect(byRule['total']?.headroom.toFixed()).toBe('9000');
  });
});

describe('fp9 integer helpers', () => {
  it('reads Decimals exactly, and rounds beyond 9 places as told', () => {
    expect(toRaw(D('50123.45'))).toBe(50_123_450_000_000n);
    expect(toRaw(D('-12.000000001'))).toBe(-12_000_000_001n);
    expect(toRaw(D('123456789012345.123456789'))).toBe(123_456_789_012_345_123_456_789n);
    expect(toRaw(D('1e20'))).toBe(10n ** 29n);
    expect(toRaw(D('0.0000000015'), 'floor')).toBe(1n);
    expect(toRaw(D('0.0000000015'), 'ceil')).toBe(2n);
    expect(toRaw(D('-0.0000000015'), 'floor')).toBe(-2n);
    expect(toRaw(D('-0.0000000015'), 'ceil')).toBe(-1n);
  });

  it('divides towards −∞ / +∞ for every sign', () => {
    expect([floorDiv(7n, 2n), floorDiv(-7n, 2n), floorDiv(7n, -2n), floorDiv(-7n, -2n)]).toEqual([3n, -4n, -4n, 3n]);
    expect([ceilDiv(7n, 2n), ceilDiv(-7n, 2n), ceilDiv(7n, -2n), ceilDiv(-7n, -2n)]).toEqual([4n, -3n, -3n, 4n]);
    expect(ceilDiv(6n, 2n)).toBe(3n);
    expect(fmt(-1_500_000_000n)).toBe('-1.5');
    expect(fmt(1n)).toBe('0.000000001');
  });
});
