/**
 * An account's equity is its balance plus the pnl of every open position, whichever market moves:
 * the engine keeps the unrealised sum as it goes (a holding's share replaced at each price), and
 * takes a shortcut while the account holds one market only, which must not hold with two.
 */
import { describe, expect, it } from 'vitest';
import { Dec, dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import { D, FLAT, T0 } from './helpers.js';

describe('account equity across holdings', () => {
  it('is the balance plus every open position’s pnl after each price of either market, one held or two', async () => {
    const engine = new Engine({ startMs: T0 });
    const btc = engine.addMarket({ baseAsset: 'BTC', price: dec('50000'), overrides: FLAT });
    const eth = engine.addMarket({ baseAsset: 'ETH', price: dec('3000'), overrides: FLAT });
    const acc = engine.openAccount({ userId: 'u', type: 'real', initialBalance: dec('10000') });
    const ex = engine.exchangeFor('u');
    const id = acc.accountId;
    const prices = new Map([[btc.id, dec('50000')], [eth.id, dec('3000')]]);
    // A position's unrealised pnl at the index price, fp9 and to the trader's loss (the engine model's
    // rounding): long ⌊size × price⌋ − notional, short notional − ⌈size × price⌉.
    const unrealised = (p: { market: string; direction: string; size: Dec; notional: Dec }): Dec => {
      const value = p.size.times(prices.get(p.market)!);
      return p.direction === 'long' ? value.toDecimalPlaces(9, Dec.ROUND_DOWN).minus(p.notional) : p.notional.minus(value.toDecimalPlaces(9, Dec.ROUND_UP));
    };
    const check = async (what: string): Promise<void> => {
      const risk = await ex.getRiskStatus(id);
      const positions = [...(await ex.listActivePositions(id, 'BTC')), ...(await ex.listActivePositions(id, 'ETH'))];
      const expected = positions.reduce((sum, p) => sum.plus(unrealised(p)), risk.currentBalance);
      expect(risk.currentEquity.toFixed(), what).toBe(expected.toFixed());
    };
    let t = T0;
    const move = async (market: typeof btc, price: string): Promise<void> => {
      t += 61_000;
      prices.set(market.id, dec(price));
      engine.setIndexPrice(market.id, dec(price), t);
      await check(`${market === btc ? 'BTC' : 'ETH'} at ${price}`);
    };
    await ex.createOrder({ accountId: id, marketId: btc.id, type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    await move(btc, '50500');
    await move(btc, '49800');
    // A second market held: each price of either one must move only its own share.
    await ex.createOrder({ accountId: id, marketId: eth.id, type: 'market', direction: 'short', amount: D(500), leverage: D(3) });
    await move(eth, '2950');
    await move(btc, '51000');
    await move(eth, '3100');
    await move(btc, '50200');
    await move(eth, '3050');
    // Back to one market held.
    const [ethPosition] = await ex.listActivePositions(id, 'ETH');
    // A close is a take of the whole size (short: direction as the position's), as the partial-close test places it.
    await ex.createOrder({ accountId: id, marketId: eth.id, type: 'take', direction: 'short', amount: ethPosition!.size, triggerPrice: D(0), positionId: ethPosition!.idx });
    expect(await ex.listActivePositions(id, 'ETH')).toEqual([]);
    await move(btc, '52000');
    await move(eth, '2800');
  });
});
