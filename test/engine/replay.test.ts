/**
 * Sixty days of real hourly BTC data (the shipped Coinbase file, from 2017-07) through the engine with a handful of
 * orders of every kind: the books balance to the last fp9 unit, and replaying the same inputs twice
 * gives byte-identical reads.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/api/exchange.js';
import { paginate } from '../../src/api/exchange.js';
import type { PositionEvent } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import { COINBASE_BTC_1H, shippedCandles } from '../data.js';
import { D } from './helpers.js';

interface Candle {
  t: number;
  o: string;
  h: string;
  l: string;
  c: string;
}

/** The first 60 days of the shipped Coinbase BTC hourly file. */
async function loadDays(): Promise<Candle[]> {
  const rows = await shippedCandles(COINBASE_BTC_1H, 1440);
  return rows.map((r) => ({ t: r.time, o: r.open, h: r.high, l: r.low, c: r.close }));
}

/** Runs the scenario and returns every read as JSON plus the position events for the books check. */
async function scenario(candles: Candle[]): Promise<{ json: string; events: PositionEvent[][]; balance: string; initial: string }> {
  const first = candles[0]!;
  const engine = new Engine({ startMs: first.t, seed: 'replay' });
  const m = engine.addMarket({ baseAsset: 'BTC', price: dec(first.o) });
  const acc = engine.openAccount({ userId: 'trader', type: 'real', initialBalance: dec(100000) });
  const ex: Exchange = engine.exchangeFor('trader');
  const id = acc.accountId;
  const order = (r: Record<string, unknown>) => ex.createOrder({ accountId: id, marketId: m.id, ...r } as never, { idempotencyKey: null });
  const out: unknown[] = [];
  for (let i = 0; i < candles.length; i++) {
    const k = candles[i]!;
    const up = Number(k.c) >= Number(k.o);
    const path4 = up ? [k.o, k.l, k.h, k.c] : [k.o, k.h, k.l, k.c];
    path4.forEach((p, j) => engine.setIndexPrice(m.id, dec(p), k.t + j * 900_000));
    const px = Number(k.c);
    if (i === 10) out.push(await order({ type: 'market', direction: 'long', amount: D(5000), leverage: D(5), stopTriggerPrice: D(Math.round(px * 0.97)), takeTriggerPrice: D(Math.round(px * 1.02)) }));
    if (i === 30) out.push(await order({ type: 'limit', direction: 'short', amount: D(3000), leverage: D(3), triggerPrice: D(Math.round(px * 1.003)) }));
    if (i === 60) out.push(await order({ type: 'stop_market', direction: 'long', amount: D(2000), leverage: D(2), triggerPrice: D(Math.round(px * 1.004)), sizeMode: 'base', baseSize: D('0.05') }));
    if (i === 90) out.push(await order({ type: 'stop_limit', direction: 'short', amount: D(2000), leverage: D(4), triggerPrice: D(Math.round(px * 0.996)), stopLimitPrice: D(Math.round(px * 0.9965)) }));
    if (i === 200) {
      for (const p of await ex.listActivePositions(id, 'BTC')) {
        out.push(await order({ type: 'trailing_stop', direction: p.direction, amount: p.size, positionId: p.idx, trailingStopOffsetPercent: D('0.004') }));
      }
    }
    if (i === 400) {
      for (const p of await ex.listActivePositions(id, 'BTC')) {
        out.push(await order({ type: 'take', direction: p.direction, amount: p.size.div(3), triggerPrice: D(0), positionId: p.idx }));
      }
      out.push(await order({ type: 'market', direction: 'short', amount: D(4000), leverage: D(5) }));
    }
    if (i === 900) out.push(await order({ type: 'market', direction: 'long', amount: D(3000), leverage: D(4) }));
    if (i === 1300) out.push(await ex.closeAllAccount(id, { idempotencyKey: 'end' }));
    if (i % 240 === 0) out.push(await ex.getRiskStatus(id));
  }
  const positionIds = new Set<string>();
  for await (const o of paginate((q) => ex.listOrderHistory(id, 'BTC', q))) {
    out.push(o);
    if (o.positionId) positionIds.add(o.positionId);
  }
  const s = Math.floor(first.t / 1000);
  for await (const c of paginate((q) => ex.listChartEvents(id, 'BTC', { ...q, executedFrom: s, executedTo: s + 86_400 }))) out.push(c);
  out.push(await ex.getChartEventBuckets(id, 'BTC', { resolution: '240', from: Math.floor(s / 14_400) * 14_400, to: s + 86_400 }));
  const events: PositionEvent[][] = [];
  for (const pid of [...positionIds].sort()) {
    const h = await ex.getPositionHistory(pid);
    events.push(h);
    out.push(h);
  }
  out.push(await ex.getEquityHistory(id, { duration: -86_400_000 }));
  out.push(await ex.listAccountEvents());
  out.push(await ex.getMarket(m.id));
  const rs = await ex.getRiskStatus(id);
  out.push(rs);
  return { json: JSON.stringify(out), events, balance: rs.currentBalance.toString(), initial: '100000' };
}

describe('replay of sixty days of real hourly BTC data', async () => {
  const candles = await loadDays();

  it('the books balance: balance = initial + Σ realised pnl − Σ fees ± Σ funding, to the last fp9 unit', async () => {
    const r = await scenario(candles);
    expect(r.events.length).toBeGreaterThanOrEqual(3);
    let sum = D(r.initial);
    let funding = D(0);
    let closes = 0;
    for (const h of r.events) {
      const last = h[0]!; // newest first: the final state of the position
      expect(last.status).not.toBe('opened');
      sum = sum.plus(last.pnl!).minus(last.fee).plus(last.funding!);
      funding = funding.plus(last.funding!);
      closes += h.filter((e) => e.eventName === 'closePosition').length;
    }
    expect(funding.isZero()).toBe(false);
    expect(closes).toBeGreaterThanOrEqual(3);
    expect(r.balance).toBe(sum.toString());
    expect(r.balance).not.toBe(r.initial);
  });

  it('the same inputs give byte-identical outputs', async () => {
    const a = await scenario(candles);
    const b = await scenario(candles);
    expect(a.json.length).toBeGreaterThan(10_000);
    expect(b.json).toBe(a.json);
  });
});
