/**
 * Conformance: positions and their events (every field, versions), the worked sizing numbers of
 * ENGINE-MODEL, closing pnl and fees, the 60-second adjustment, scalping, funding and liquidation.
 */
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { decToRaw, rawToDec } from '../../src/engine/fixed.js';
import { D, FLAT, HOUR, MIN, world } from './helpers.js';

const fee = D('0.00008');

describe('sizing an increase (quote mode)', () => {
  it('amount 100 at 5x with fee 0.008% gives notional 499.80 and margin 99.96', async () => {
    const w = world({ market: { overrides: FLAT } });
    const { value: o } = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(p!.notional.toFixed(2)).toBe('499.80');
    expect(p!.margin.toFixed(2)).toBe('99.96');
    // the exact model: N = A / (1/L + f), M = N / L, fee = N × f, to fp9
    const N = D(100).div(D(1).div(5).plus(fee)).toDecimalPlaces(9, Dec.ROUND_DOWN);
    expect(p!.notional.toString()).toBe(N.toString());
    expect(p!.margin.toString()).toBe(N.div(5).toDecimalPlaces(9, Dec.ROUND_DOWN).toString());
    expect(p!.fee.toString()).toBe(N.times(fee).toDecimalPlaces(9, Dec.ROUND_UP).toString());
    expect(p!.size.toString()).toBe(N.div(50000).toDecimalPlaces(9, Dec.ROUND_DOWN).toString());
    // the executed order's amount is what was spent: margin + fee, within the reserve
    expect(o.amount.toString()).toBe(p!.margin.plus(p!.fee).toString());
    expect(o.amount.lte(100)).toBe(true);
  });
});

describe('Position record and events', () => {
  it('every field of a freshly opened position', async () => {
    const w = world();
    const { value: o } = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(p!.txId).toBe(p!.idx);
    expect(p!.version).toBe(1);
    expect(p!.openedAt.getTime()).toBe(w.engine.now());
    expect(p!.lastUpdatedAt.getTime()).toBe(w.engine.now());
    expect(p!.timestamp.getTime()).toBe(w.engine.now());
    expect(p!.closedAt).toBeNull();
    expect([p!.type, p!.direction, p!.status]).toEqual(['long', 'long', 'opened']);
    expect([p!.market, p!.trader]).toEqual([w.market.id, w.accountId]);
    for (const k of ['fraction', 'rolloverFee', 'rolloverFeeInEvent', 'executionFeeRate', 'executionFeeInEvent', 'executionFee', 'pnlInEvent', 'rawPnlInEvent', 'fundingInEvent', 'roe'] as const) {
      expect(p![k].isZero(), k).toBe(true);
    }
    expect(p!.pnl!.isZero()).toBe(true);
    expect(p!.funding!.isZero()).toBe(true);
    expect(p!.settlementOraclePrice.toString()).toBe('1');
    expect(p!.isOnchain).toBe(true);
    expect(p!.feeRate.toString()).toBe('0.00008');
    expect(p!.feeInEvent.toString()).toBe(p!.fee.toString());
    expect(p!.exchangedQuote.toString()).toBe(p!.notional.toString());
    expect(p!.exchangedBase.toString()).toBe(p!.size.toString());
    expect(p!.eventName).toBe('increasePosition');
    expect(p!.profitAdjustmentApplied).toBe(false);
    expect(p!.holdingTimeMs).toBeNull();
    expect(p!.scalpingCoefficient.toString()).toBe('1');
    expect(p!.closeReason).toBeNull();
    const [ev] = await w.ex.getPositionHistory(p!.idx);
    expect(ev!.order!.id).toBe(o.id);
  });
  it('an increase inside the scalping window pays the doubled spread and bumps the version', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0.001', spreadLimit: '0.01', maxPriceImpact: '0' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [p1] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('50000', 10 * MIN);
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [p2] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(p2!.version).toBe(2);
    expect(p2!.scalpingCoefficient.toString()).toBe('2');
    // first fill at 50000 × 1.001, second at 50000 × 1.002
    expect(p1!.exchangedQuote.div(p1!.exchangedBase).toDecimalPlaces(2).toString()).toBe('50050');
    expect(p2!.exchangedQuote.div(p2!.exchangedBase).toDecimalPlaces(2).toString()).toBe('50100');
    expect(p2!.size.toString()).toBe(p1!.size.plus(p2!.exchangedBase).toString());
    // the spread limit caps the multiplied spread
    const capped = world({ market: { overrides: { vpiSpread: '0.001', spreadLimit: '0.0015', maxPriceImpact: '0' } } });
    await capped.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    await capped.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [c2] = await capped.ex.listActivePositions(capped.accountId, 'BTC');
    expect(c2!.exchangedQuote.div(c2!.exchangedBase).toDecimalPlaces(2).toString()).toBe('50075');
    const sc = await w.ex.getScalpingCoefficient(w.accountId, 'BTC');
    expect(sc.amount.toString()).toBe('2');
    expect(sc.amountRegular.toString()).toBe('1');
    expect(sc.activeSince!.getTime()).toBe(w.engine.now());
    expect(sc.activeUntil!.getTime()).toBe(w.engine.now() + HOUR);
    w.price('50000', HOUR);
    const after = await w.ex.getScalpingCoefficient(w.accountId, 'BTC');
    expect(after.activeSince).toBeNull();
    expect(after.activeUntil).toBeNull();
  });
  it('a partial close: pnl c × (fill − entry), fee c × fill × f, margin released pro rata', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('51000', 5 * MIN);
    const c = D('0.04');
    const { value: o } = await w.order({ type: 'take', direction: 'long', amount: c, triggerPrice: D(0), positionId: p!.idx });
    const [q] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const entry = p!.notional.div(p!.size);
    const releasedNotional = p!.notional.times(c).div(p!.size).toDecimalPlaces(9, Dec.ROUND_DOWN);
    const pnl = c.times(51000).minus(releasedNotional);
    expect(o.realizedPnl!.toString()).toBe(pnl.toString());
    expect(o.realizedPnl!.minus(c.times(D(51000).minus(entry))).abs().lt('0.000001')).toBe(true);
    expect(q!.feeInEvent.toString()).toBe(c.times(51000).times(fee).toDecimalPlaces(9, Dec.ROUND_UP).toString());
    expect(q!.margin.toString()).toBe(p!.margin.minus(p!.margin.times(c).div(p!.size).toDecimalPlaces(9, Dec.ROUND_DOWN)).toString());
    expect(q!.size.toString()).toBe(p!.size.minus(c).toString());
    expect(q!.version).toBe(2);
    expect(q!.eventName).toBe('closePosition');
    expect(q!.holdingTimeMs).toBe(String(5 * MIN));
    expect(q!.pnl!.toString()).toBe(pnl.toString());
    expect(q!.roe.toString()).toBe(pnl.div(p!.margin).toDecimalPlaces(9, Dec.ROUND_DOWN).toString());
    expect(q!.status).toBe('opened');
    // a size above the position closes it fully
    await w.order({ type: 'take', direction: 'long', amount: D(100), triggerPrice: D(0), positionId: p!.idx });
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const [last] = await w.ex.getPositionHistory(p!.idx);
    expect(last!.status).toBe('closed');
    expect(last!.size.isZero()).toBe(true);
    expect(last!.closedAt!.getTime()).toBe(w.engine.now());
  });

  it("a closed position's views take the shared cache's Decimals: no memo is kept for it while the engine keeps it", async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    const [open] = await w.ex.listActivePositions(w.accountId, 'BTC');
    // an open position's figures are its own memo's, made afresh (not the cache's instances)
    expect(open!.margin).not.toBe(rawToDec(decToRaw(open!.margin)));
    const [again] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(again!.margin).toBe(open!.margin);
    w.price('51000', 5 * MIN);
    await w.order({ type: 'take', direction: 'long', amount: D(100), triggerPrice: D(0), positionId: open!.idx });
    const history = await w.ex.getPositionHistory(open!.idx);
    const closed = history.find((h) => h.status === 'closed')!;
    for (const field of ['notional', 'margin', 'pnl', 'fee', 'feeRate', 'exchangedQuote', 'exchangedBase', 'pnlInEvent', 'feeInEvent'] as const) {
      expect(closed[field], field).toBe(rawToDec(decToRaw(closed[field]!)));
    }
    expect(closed.feeRate.toString()).toBe(open!.feeRate.toString());
  });
});

describe('the 60-second profit adjustment', () => {
  it('a close 20 s after the open with a profit realises no more than the pnl at the open', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0.0005', maxPriceImpact: '0' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const pnlAtOpen = p!.size.times(50000).toDecimalPlaces(9, Dec.ROUND_DOWN).minus(p!.notional);
    w.price('50500', 20_000);
    const { value: o } = await w.order({ type: 'take', direction: 'long', amount: p!.size, triggerPrice: D(0), positionId: p!.idx });
    expect(o.rawRealizedPnl!.gt(0)).toBe(true);
    expect(o.realizedPnl!.lte(pnlAtOpen)).toBe(true);
    expect(o.realizedPnl!.toString()).toBe(pnlAtOpen.toString());
    expect(o.profitAdjustmentApplied).toBe(true);
    const [ev] = await w.ex.getPositionHistory(p!.idx);
    expect(ev!.profitAdjustmentApplied).toBe(true);
    expect(ev!.pnlInEvent.toString()).toBe(o.realizedPnl!.toString());
    expect(ev!.rawPnlInEvent.toString()).toBe(o.rawRealizedPnl!.toString());
  });
  it('after 60 s, or on a loss, nothing is adjusted', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('49000', 10_000);
    const loss = await w.order({ type: 'take', direction: 'long', amount: p!.size.div(2), triggerPrice: D(0), positionId: p!.idx });
    expect(loss.value.profitAdjustmentApplied).toBe(false);
    expect(loss.value.realizedPnl!.toString()).toBe(loss.value.rawRealizedPnl!.toString());
    w.price('51000', 60_000);
    const [q] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const win = await w.order({ type: 'take', direction: 'long', amount: q!.size, triggerPrice: D(0), positionId: p!.idx });
    expect(win.value.profitAdjustmentApplied).toBe(false);
    expect(win.value.realizedPnl!.gt(0)).toBe(true);
  });
});

describe('funding', () => {
  it('every 8 h longs pay size × I × rate and shorts receive it; margin and balance move; payFunding left out of history', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    await w.order({ type: 'market', direction: 'short', amount: D(500), leverage: D(5) });
    const [l0, s0] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const before = await w.ex.getRiskStatus(w.accountId);
    const m0 = await w.ex.getMarket(w.market.id);
    expect(m0.state.nextFundingAt).toBe(Date.UTC(2024, 0, 1, 8));
    expect(m0.state.lastFundingAt).toBeNull();
    w.engine.advanceTo(Date.UTC(2024, 0, 1, 8));
    const [l1, s1] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const rate = D('0.0003');
    const payL = l0!.size.times(50000).times(rate).toDecimalPlaces(9, Dec.ROUND_DOWN);
    const payS = s0!.size.times(50000).times(rate).toDecimalPlaces(9, Dec.ROUND_DOWN);
    expect(l1!.funding!.toString()).toBe(payL.neg().toString());
    expect(l1!.fundingInEvent.toString()).toBe(payL.neg().toString());
    expect(l1!.eventName).toBe('payFunding');
    expect(l1!.version).toBe(2);
    expect(l1!.margin.toString()).toBe(l0!.margin.minus(payL).toString());
    expect(s1!.funding!.toString()).toBe(payS.toString());
    const after = await w.ex.getRiskStatus(w.accountId);
    expect(after.currentBalance.toString()).toBe(before.currentBalance.minus(payL).plus(payS).toString());
    const hist = await w.ex.getPositionHistory(l0!.idx);
    expect(hist.map((e) => e.eventName)).toEqual(['increasePosition']);
    const m1 = await w.ex.getMarket(w.market.id);
    expect(m1.state.lastFundingAt).toBe(Date.UTC(2024, 0, 1, 8));
    expect(m1.state.nextFundingAt).toBe(Date.UTC(2024, 0, 1, 16));
    // a jump over two boundaries settles twice
    w.engine.advanceTo(Date.UTC(2024, 0, 2, 0, 30));
    const [l2] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(l2!.version).toBe(4);
  });
});

describe('liquidation', () => {
  it('margin + pnl ≤ mmr × size × I liquidates the whole position: margin lost, stops canceled_by_position', async () => {
    const w = world({ market: { overrides: FLAT }, account: { rules: { maxDailyDrawdown: null, maxTotalDrawdown: null } } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5), stopTriggerPrice: D(43000) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const mmr = D('0.05');
    const liq = p!.notional.minus(p!.margin).div(p!.size.times(D(1).minus(mmr)));
    // the stop fires first when the price passes it; remove it to reach liquidation
    await w.ex.cancelOrder((await w.ex.listActiveOrders(w.accountId))[0]!.id);
    await w.order({ type: 'take', direction: 'long', amount: p!.size, triggerPrice: D(60000), positionId: p!.idx });
    w.price(liq.plus(1).toDecimalPlaces(0).toString(), MIN);
    expect((await w.ex.listActivePositions(w.accountId, 'BTC')).length).toBe(1);
    w.price(liq.minus(1).toDecimalPlaces(0).toString(), MIN);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const [ev] = await w.ex.getPositionHistory(p!.idx);
    expect(ev!.eventName).toBe('liquidate');
    expect(ev!.status).toBe('liquidated');
    expect(ev!.pnlInEvent.toString()).toBe(p!.margin.neg().toString());
    expect(ev!.order!.type).toBe('liquidation');
    expect(ev!.order!.realizedPnl!.toString()).toBe(p!.margin.neg().toString());
    const hist = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data;
    expect(hist.find((o) => o.type === 'take')!.status).toBe('canceled_by_position');
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.currentBalance.toString()).toBe(D(10000).minus(p!.fee).minus(p!.margin).toString());
    // Liquidated once: a later price further below leaves the closed position and the books alone.
    w.price(liq.minus(500).toDecimalPlaces(0).toString(), MIN);
    expect((await w.ex.getPositionHistory(p!.idx)).map((e) => e.eventName)).toEqual(['liquidate', 'increasePosition']);
    expect((await w.ex.listOrderHistory(w.accountId, 'BTC')).data.filter((o) => o.type === 'liquidation')).toHaveLength(1);
    expect((await w.ex.getRiskStatus(w.accountId)).currentBalance.toString()).toBe(rs.currentBalance.toString());
  });
});

describe('books balance', () => {
  it('balance = initial + Σ realised pnl − Σ fees ± Σ funding, to the last fp9 unit', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0.0002' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(700), leverage: D(4) });
    await w.order({ type: 'market', direction: 'short', amount: D(300), leverage: D(3) });
    w.price('50500', 3 * HOUR);
    w.price('49800', 6 * HOUR);
    const ps = await w.ex.listActivePositions(w.accountId, 'BTC');
    await w.order({ type: 'take', direction: 'long', amount: ps[0]!.size.div(3), triggerPrice: D(0), positionId: ps[0]!.idx });
    await w.ex.closeAllPositions(w.accountId);
    let sum = D(10000);
    for (const p of ps) {
      const [last] = await w.ex.getPositionHistory(p.idx);
      sum = sum.plus(last!.pnl!).minus(last!.fee).plus(last!.funding!);
      expect(last!.funding!.isZero()).toBe(false);
    }
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.currentBalance.toString()).toBe(sum.toString());
  });
});
