/**
 * Conformance: POST /orders and PATCH /orders/{id} validation, in the spec's order, each listed code
 * reached by a request that breaks exactly that rule.
 */
import { describe, expect, it } from 'vitest';
import {
  AccountAccessDeniedError,
  ApiTradingNotEnabledError,
  ChallengeClosedError,
  FundedLimitTradingLockedError,
  IdempotencyInFlightError,
  InvalidLeverageError,
  MarketCloseOnlyError,
  MarketPausedError,
  NotFoundError,
  OrderNotActiveError,
  ValidationError,
} from '../../src/api/errors.js';
import type { CreateOrderRequest } from '../../src/api/types.js';
import { D, FLAT, rejects, world } from './helpers.js';

type Req = Partial<CreateOrderRequest> & Pick<CreateOrderRequest, 'type' | 'direction' | 'amount'>;
const base: Req = { type: 'limit', direction: 'long', amount: D(100), leverage: D(5), triggerPrice: D(49000) };

describe('POST /orders step 1: shape for the type', () => {
  const cases: Array<[string, Req]> = [
    ['amount_not_positive', { ...base, amount: D(0) }],
    ['amount_not_positive', { ...base, amount: D(-1) }],
    ['base_size_required', { ...base, sizeMode: 'base' }],
    ['base_size_negative', { ...base, sizeMode: 'base', baseSize: D('-0.1') }],
    ['base_size_not_allowed', { ...base, baseSize: D('0.1') }],
    ['base_size_not_allowed', { type: 'take', direction: 'long', amount: D(1), triggerPrice: D(60000), positionId: 'p', sizeMode: 'base', baseSize: D(1) }],
    ['leverage_required', { ...base, leverage: null }],
    ['leverage_negative', { ...base, leverage: D(-2) }],
    ['trigger_price_required', { ...base, triggerPrice: null }],
    ['trigger_price_required', { ...base, type: 'stop_market', triggerPrice: D(0) }],
    ['trigger_price_required', { type: 'stop', direction: 'long', amount: D(1), positionId: 'p' }],
    ['trigger_price_negative', { ...base, triggerPrice: D(-1) }],
    ['stop_trigger_price_negative', { ...base, stopTriggerPrice: D(-1) }],
    ['take_trigger_price_negative', { ...base, takeTriggerPrice: D(-1) }],
    ['stop_trigger_price_gt_trigger_price', { ...base, stopTriggerPrice: D(49500) }],
    ['stop_trigger_price_lt_trigger_price', { ...base, type: 'limit', direction: 'short', triggerPrice: D(51000), stopTriggerPrice: D(50500) }],
    ['take_trigger_price_lt_trigger_price', { ...base, takeTriggerPrice: D(48000) }],
    ['take_trigger_price_gt_trigger_price', { ...base, direction: 'short', triggerPrice: D(51000), takeTriggerPrice: D(52000) }],
    ['stop_limit_price_required', { ...base, type: 'stop_limit', triggerPrice: D(51000) }],
    ['stop_limit_price_negative', { ...base, type: 'stop_limit', triggerPrice: D(51000), stopLimitPrice: D(-5) }],
    ['stop_limit_price_gt_trigger_price', { ...base, type: 'stop_limit', triggerPrice: D(51000), stopLimitPrice: D(51500) }],
    ['stop_limit_price_lt_trigger_price', { ...base, type: 'stop_limit', direction: 'short', triggerPrice: D(49000), stopLimitPrice: D(48500) }],
    ['trailing_stop_activation_price_negative', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p', trailingStopOffset: D(100), trailingStopActivationPrice: D(-1) }],
    ['trailing_stop_offset_required', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p' }],
    ['trailing_stop_offset_conflict', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p', trailingStopOffset: D(100), trailingStopOffsetPercent: D('0.01') }],
    ['trailing_stop_offset_negative', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p', trailingStopOffset: D(-100) }],
    ['trailing_stop_offset_percent_negative', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p', trailingStopOffsetPercent: D('-0.01') }],
    ['trailing_stop_offset_percent_gte_one', { type: 'trailing_stop', direction: 'long', amount: D(1), positionId: 'p', trailingStopOffsetPercent: D(1) }],
    ['position_id_required', { type: 'take', direction: 'long', amount: D(1), triggerPrice: D(60000) }],
    ['order_type_not_accepted', { ...base, type: 'liquidation' as never }],
    ['direction_invalid', { ...base, direction: 'up' as never }],
    ['size_mode_invalid', { ...base, sizeMode: 'units' as never }],
    ['expected_amount_negative', { ...base, expectedAmount: D(-1) }],
    ['trigger_price_not_allowed', { ...base, type: 'market', triggerPrice: D(50000) }],
  ];
  for (const [code, req] of cases) {
    it(`${code} (${req.type} ${req.direction})`, async () => {
      const w = world();
      await rejects(w.order(req), ValidationError, code);
      expect(await w.ex.listActiveOrders(w.accountId)).toEqual([]);
    });
  }

  it('shape comes before leverage, leverage before the account rules (ownership included)', async () => {
    const w = world();
    w.engine.addUser('intruder');
    const other = w.engine.exchangeFor('intruder');
    const as = (r: Req) => other.createOrder({ ...r, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest);
    await rejects(as({ ...base, amount: D(0) }), ValidationError, 'amount_not_positive');
    await rejects(as({ ...base, leverage: D(50) }), InvalidLeverageError, 'invalid_leverage');
    await rejects(as(base), AccountAccessDeniedError, 'account_access_denied');
    w.engine.setAccountStatus(w.accountId, 'frozen');
    await rejects(w.order({ ...base, amount: D(0), leverage: D(50) }), ValidationError, 'amount_not_positive');
    await rejects(w.order({ ...base, leverage: D(50) }), InvalidLeverageError, 'invalid_leverage');
    await rejects(w.order(base), ChallengeClosedError, 'challenge_closed');
  });
});

describe('POST /orders step 2: leverage bounds', () => {
  it('invalid_leverage above the maximum carries leverage and maxLeverage as fp9 strings', async () => {
    const w = world();
    const err = (await rejects(w.order({ ...base, leverage: D(6) }), InvalidLeverageError, 'invalid_leverage')) as InvalidLeverageError;
    expect(err.leverage).toBe('6000000000');
    expect(err.maxLeverage).toBe('5000000000');
    expect(err.minLeverage).toBeUndefined();
  });
  it('invalid_leverage below the minimum carries minLeverage', async () => {
    const w = world();
    const err = (await rejects(w.order({ ...base, leverage: D('0.5') }), InvalidLeverageError, 'invalid_leverage')) as InvalidLeverageError;
    expect(err.details).toEqual({ leverage: '500000000', minLeverage: '1000000000' });
  });
  it('the phase maximum caps below the market', async () => {
    const w = world({ account: { rules: { maxLeverage: '2' } } });
    const err = (await rejects(w.order({ ...base, leverage: D(3) }), InvalidLeverageError, 'invalid_leverage')) as InvalidLeverageError;
    expect(err.maxLeverage).toBe('2000000000');
    await expect(w.order({ ...base, leverage: D(2) })).resolves.toBeTruthy();
  });
});

describe('POST /orders step 3: the account', () => {
  it('404 for an unknown account, account_access_denied for another user, api_trading_not_enabled by API key', async () => {
    const w = world({ account: { apiTrading: false } });
    await rejects(w.ex.createOrder({ ...base, accountId: 'nope', marketId: w.market.id } as CreateOrderRequest), NotFoundError, 'not_found');
    w.engine.addUser('intruder');
    const other = w.engine.exchangeFor('intruder');
    await rejects(other.createOrder({ ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest), AccountAccessDeniedError, 'account_access_denied');
    const api = w.engine.exchangeFor(w.user, { viaApiKey: true });
    await rejects(api.createOrder({ ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest), ApiTradingNotEnabledError, 'api_trading_not_enabled');
    await expect(w.order(base)).resolves.toBeTruthy();
  });
  it('challenge_closed outside a trading status', async () => {
    const w = world();
    w.engine.setAccountStatus(w.accountId, 'suspended');
    await rejects(w.order(base), ChallengeClosedError, 'challenge_closed');
  });
  it('funded_limit_trading_locked refuses increases but lets closes through', async () => {
    const w = world({ market: { overrides: FLAT } });
    const open = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.engine.setAccountStatus(w.accountId, 'trading_locked_by_funded_limit');
    await rejects(w.order(base), FundedLimitTradingLockedError, 'funded_limit_trading_locked');
    const close = await w.order({ type: 'take', direction: 'long', amount: pos!.size, triggerPrice: D(0), positionId: pos!.idx });
    expect(open.value.status).toBe('executed');
    expect(close.value.status).toBe('executed');
  });
  it('an increase needs its amount as free balance', async () => {
    const w = world();
    await rejects(w.order({ ...base, amount: D(10001) }), ValidationError, 'insufficient_free_balance');
    await w.order({ ...base, amount: D(6000) });
    await rejects(w.order({ ...base, amount: D(4001) }), ValidationError, 'insufficient_free_balance');
  });
});

describe('POST /orders step 4: the market', () => {
  it('market_paused while paused by flag', async () => {
    const w = world();
    w.engine.setMarketFlags(w.market.id, { isPaused: true });
    await rejects(w.order(base), MarketPausedError, 'market_paused');
  });
  it('a close-only market takes only a take without a trigger', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.engine.setMarketFlags(w.market.id, { isCloseOnly: true });
    await rejects(w.order(base), MarketCloseOnlyError, 'market_close_only');
    await rejects(w.order({ type: 'take', direction: 'long', amount: D(1), triggerPrice: D(60000), positionId: pos!.idx }), MarketCloseOnlyError, 'market_close_only');
    await rejects(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(0), positionId: pos!.idx }), MarketCloseOnlyError, 'market_close_only');
    const take = await w.order({ type: 'take', direction: 'long', amount: D(1), triggerPrice: D(0), positionId: pos!.idx });
    expect(take.value.status).toBe('executed');
  });
  it('an account limited to rwa may not trade a crypto market', async () => {
    const w = world({ account: { category: 'rwa' } });
    const err = await rejects(w.order(base), Error as never, 'market_not_available');
    expect((err as { status?: number }).status).toBe(403);
  });
});

describe('POST /orders step 5: the position', () => {
  it('position_not_found and position_not_available', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    await rejects(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(45000), positionId: 'no-such' }), ValidationError, 'position_not_found');
    await rejects(w.order({ type: 'stop', direction: 'short', amount: D(1), triggerPrice: D(55000), positionId: pos!.idx }), ValidationError, 'position_not_available');
    await w.order({ type: 'take', direction: 'long', amount: D(1), triggerPrice: D(0), positionId: pos!.idx });
    await rejects(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(45000), positionId: pos!.idx }), ValidationError, 'position_not_available');
  });
});

describe('POST /orders step 6: triggers against price and liquidation', () => {
  it('trigger_price_gt_current / lt_current by type and side', async () => {
    const w = world({ market: { overrides: FLAT } });
    await rejects(w.order({ ...base, triggerPrice: D(50001) }), ValidationError, 'trigger_price_gt_current');
    await rejects(w.order({ ...base, direction: 'short', triggerPrice: D(49999) }), ValidationError, 'trigger_price_lt_current');
    await rejects(w.order({ ...base, type: 'stop_market', triggerPrice: D(49999) }), ValidationError, 'trigger_price_lt_current');
    await rejects(w.order({ ...base, type: 'stop_market', direction: 'short', triggerPrice: D(50001) }), ValidationError, 'trigger_price_gt_current');
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    await rejects(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(50001), positionId: pos!.idx }), ValidationError, 'trigger_price_gt_current');
    await rejects(w.order({ type: 'take', direction: 'long', amount: D(1), triggerPrice: D(49999), positionId: pos!.idx }), ValidationError, 'trigger_price_lt_current');
  });
  it('a long stop below the liquidation price: trigger_price_lt_liquidation; a short stop above: gt', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    await w.order({ type: 'market', direction: 'short', amount: D(100), leverage: D(5) });
    const [long, short] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(long!.direction).toBe('long');
    // long 5x with mmr 5%: liquidation ≈ 50000 × (1 − 0.2) / 0.95 ≈ 42105
    await rejects(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(42000), positionId: long!.idx }), ValidationError, 'trigger_price_lt_liquidation');
    await expect(w.order({ type: 'stop', direction: 'long', amount: D(1), triggerPrice: D(42200), positionId: long!.idx })).resolves.toBeTruthy();
    // short: ≈ 50000 × 1.2 / 1.05 ≈ 57142
    await rejects(w.order({ type: 'stop', direction: 'short', amount: D(1), triggerPrice: D(57200), positionId: short!.idx }), ValidationError, 'trigger_price_gt_liquidation');
  });
  it('a market order with a stop-loss beyond the projected liquidation price is refused', async () => {
    const w = world({ market: { overrides: FLAT } });
    await rejects(w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5), stopTriggerPrice: D(42000) }), ValidationError, 'trigger_price_lt_liquidation');
    await rejects(w.order({ type: 'market', direction: 'short', amount: D(100), leverage: D(5), stopTriggerPrice: D(57200) }), ValidationError, 'trigger_price_gt_liquidation');
    await rejects(w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5), stopTriggerPrice: D(50500) }), ValidationError, 'stop_trigger_price_gt_trigger_price');
    const ok = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5), stopTriggerPrice: D(45000) });
    expect(ok.value.status).toBe('executed');
  });
  it('market_price_unavailable without a price; order_validation_invariant when the projected size is zero', async () => {
    const w = world({ market: { overrides: FLAT } });
    const nopx = w.engine.addMarket({ baseAsset: 'ETH' });
    await rejects(
      w.ex.createOrder({ accountId: w.accountId, marketId: nopx.id, type: 'market', direction: 'long', amount: D(100), leverage: D(2), stopTriggerPrice: D(1) }),
      ValidationError,
      'market_price_unavailable',
    );
    await rejects(w.order({ type: 'market', direction: 'long', amount: D('0.000000001'), leverage: D(1), stopTriggerPrice: D(40000) }), ValidationError, 'order_validation_invariant');
  });
});

describe('POST /orders step 7: max open notional', () => {
  it('order_exceeds_max_open_notional counts the open notional on the side', async () => {
    const w = world({ market: { overrides: { ...FLAT, maxOpenNotionalLong: '1000' } } });
    await rejects(w.order({ type: 'market', direction: 'long', amount: D(300), leverage: D(5) }), ValidationError, 'order_exceeds_max_open_notional');
    await w.order({ type: 'market', direction: 'long', amount: D(150), leverage: D(5) });
    await rejects(w.order({ type: 'market', direction: 'long', amount: D(60), leverage: D(5) }), ValidationError, 'order_exceeds_max_open_notional');
    await expect(w.order({ type: 'market', direction: 'short', amount: D(300), leverage: D(5) })).resolves.toBeTruthy();
  });
});

describe('POST /orders idempotency', () => {
  it('a duplicate while the first runs is IdempotencyInFlightError; after it, a replay that does not act', async () => {
    const w = world();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const ex = w.engine.exchangeFor(w.user, {
      beforeAct: async () => {
        calls++;
        if (calls === 1) await gate;
      },
    });
    const req = { ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest;
    const first = ex.createOrder(req, { idempotencyKey: 'k1' });
    await rejects(ex.createOrder(req, { idempotencyKey: 'k1' }), IdempotencyInFlightError, 'idempotency_key_in_flight');
    release();
    const a = await first;
    expect(a.idempotency).toEqual({ key: 'k1', replayed: false, storedAt: null });
    w.engine.advanceTo(w.engine.now() + 59 * 60_000);
    const b = await ex.createOrder(req, { idempotencyKey: 'k1' });
    expect(b.idempotency.replayed).toBe(true);
    expect(b.idempotency.storedAt!.getTime()).toBe(a.value.createdAt.getTime());
    expect(b.value.id).toBe(a.value.id);
    expect(await w.ex.listActiveOrders(w.accountId)).toHaveLength(1);
    // after the 1-hour window the key acts again
    w.engine.advanceTo(w.engine.now() + 2 * 60_000);
    const c = await ex.createOrder(req, { idempotencyKey: 'k1' });
    expect(c.idempotency.replayed).toBe(false);
    expect(c.value.id).not.toBe(a.value.id);
    expect(await w.ex.listActiveOrders(w.accountId)).toHaveLength(2);
  });
  it('a key is kept for its own window, whatever window another route sweeps with', async () => {
    const w = world({ config: { presets: { limits: { orderIdempotencyMs: 3 * 3_600_000 } } } });
    const req = { ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest;
    const a = await w.ex.createOrder(req, { idempotencyKey: 'k' });
    w.engine.advanceTo(w.engine.now() + 2 * 3_600_000);
    await w.ex.closeAllPositions(w.accountId, { idempotencyKey: 'c' });
    const b = await w.ex.createOrder(req, { idempotencyKey: 'k' });
    expect([b.idempotency.replayed, b.value.id]).toEqual([true, a.value.id]);
    expect(await w.ex.listActiveOrders(w.accountId)).toHaveLength(1);
  });
  it('a refused call stores nothing; opting out with null never replays', async () => {
    const w = world();
    await rejects(w.ex.createOrder({ ...base, amount: D(0), accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest, { idempotencyKey: 'k' }), ValidationError, 'amount_not_positive');
    const ok = await w.ex.createOrder({ ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest, { idempotencyKey: 'k' });
    expect(ok.idempotency.replayed).toBe(false);
    const n1 = await w.ex.createOrder({ ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest, { idempotencyKey: null });
    const n2 = await w.ex.createOrder({ ...base, accountId: w.accountId, marketId: w.market.id } as CreateOrderRequest, { idempotencyKey: null });
    expect(n1.value.id).not.toBe(n2.value.id);
    expect(n1.idempotency.key).toBeNull();
  });
});

describe('PATCH /orders/{id}', () => {
  async function limitOrder() {
    const w = world({ market: { overrides: FLAT } });
    const o = await w.order(base);
    return { w, o: o.value };
  }
  it('404, order_not_updatable (market, take without trigger), order not active (403)', async () => {
    const { w, o } = await limitOrder();
    await rejects(w.ex.editOrder('nope', { triggerPrice: D(48000) }), NotFoundError, 'not_found');
    const mkt = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    await rejects(w.ex.editOrder(mkt.value.id, { amount: D(50) }), ValidationError, 'order_not_updatable');
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const take0 = await w.order({ type: 'take', direction: 'long', amount: D('0.0001'), triggerPrice: D(0), positionId: pos!.idx });
    await rejects(w.ex.editOrder(take0.value.id, { triggerPrice: D(60000) }), ValidationError, 'order_not_updatable');
    await w.ex.cancelOrder(o.id);
    const e = await rejects(w.ex.editOrder(o.id, { triggerPrice: D(48000) }), OrderNotActiveError, 'order_not_active');
    expect((e as unknown as { status: number }).status).toBe(403);
  });
  it('trigger_price_reset_forbidden, base_size_requires_amount, base_size_not_allowed', async () => {
    const { w, o } = await limitOrder();
    await rejects(w.ex.editOrder(o.id, { triggerPrice: D(0) }), ValidationError, 'trigger_price_reset_forbidden');
    await rejects(w.ex.editOrder(o.id, { baseSize: D('0.01') }), ValidationError, 'base_size_not_allowed');
    const b = await w.order({ ...base, sizeMode: 'base', baseSize: D('0.01'), amount: D(200) });
    await rejects(w.ex.editOrder(b.value.id, { baseSize: D('0.02') }), ValidationError, 'base_size_requires_amount');
    const edited = await w.ex.editOrder(b.value.id, { baseSize: D('0.02'), amount: D(300) });
    expect(edited.baseSize!.toString()).toBe('0.02');
    expect(edited.reservedAmount!.toString()).toBe('300');
  });
  it('re-checks shape, trigger and notional codes', async () => {
    const { w, o } = await limitOrder();
    await rejects(w.ex.editOrder(o.id, { triggerPrice: D(51000) }), ValidationError, 'trigger_price_gt_current');
    await rejects(w.ex.editOrder(o.id, { triggerPrice: D(-1) }), ValidationError, 'trigger_price_negative');
    await rejects(w.ex.editOrder(o.id, { amount: D(0) }), ValidationError, 'amount_not_positive');
    const sl = await w.order({ ...base, triggerPrice: D(49000), stopTriggerPrice: D(48000) });
    await rejects(w.ex.editOrder(sl.value.id, { triggerPrice: D(47000) }), ValidationError, 'stop_trigger_price_gt_trigger_price');
    const capped = world({ market: { overrides: { ...FLAT, maxOpenNotionalLong: '1000' } } });
    const c = await capped.order({ ...base, amount: D(100), leverage: D(5) });
    await rejects(capped.ex.editOrder(c.value.id, { amount: D(300) }), ValidationError, 'order_exceeds_max_open_notional');
  });
  it('expected_amount_negative; growing the reserve past the free balance: insufficient_free_balance', async () => {
    const { w, o } = await limitOrder();
    await rejects(w.ex.editOrder(o.id, { expectedAmount: D(-1) }), ValidationError, 'expected_amount_negative');
    await rejects(w.ex.editOrder(o.id, { amount: D('10000.000000001') }), ValidationError, 'insufficient_free_balance');
    expect((await w.ex.listActiveOrders(w.accountId)).map((x) => x.id)).toEqual([o.id]);
    const grown = await w.ex.editOrder(o.id, { amount: D(10000) });
    expect(grown.amount.toString()).toBe('10000');
  });
  it('403s: challenge_closed, funded_limit_trading_locked on growth, market_paused, market_close_only, access', async () => {
    const { w, o } = await limitOrder();
    w.engine.addUser('intruder');
    await rejects(w.engine.exchangeFor('intruder').editOrder(o.id, { amount: D(50) }), AccountAccessDeniedError, 'account_access_denied');
    w.engine.setMarketFlags(w.market.id, { isPaused: true });
    await rejects(w.ex.editOrder(o.id, { amount: D(50) }), MarketPausedError, 'market_paused');
    w.engine.setMarketFlags(w.market.id, { isPaused: false, isCloseOnly: true });
    await rejects(w.ex.editOrder(o.id, { amount: D(50) }), MarketCloseOnlyError, 'market_close_only');
    w.engine.setMarketFlags(w.market.id, { isCloseOnly: false });
    w.engine.setAccountStatus(w.accountId, 'trading_locked_by_funded_limit');
    await rejects(w.ex.editOrder(o.id, { amount: D(150) }), FundedLimitTradingLockedError, 'funded_limit_trading_locked');
    const shrunk = await w.ex.editOrder(o.id, { amount: D(50) });
    expect(shrunk.amount.toString()).toBe('50');
    w.engine.setAccountStatus(w.accountId, 'frozen');
    await rejects(w.ex.editOrder(shrunk.id, { amount: D(40) }), ChallengeClosedError, 'challenge_closed');
    const api = world({ account: { apiTrading: false } });
    const ao = await api.order(base);
    await rejects(api.engine.exchangeFor(api.user, { viaApiKey: true }).editOrder(ao.value.id, { amount: D(50) }), ApiTradingNotEnabledError, 'api_trading_not_enabled');
  });
  it('replaces the order: old canceled_by_update, new id, reserve moved; an empty edit changes nothing', async () => {
    const { w, o } = await limitOrder();
    const same = await w.ex.editOrder(o.id, {});
    expect(same.id).toBe(o.id);
    const n = await w.ex.editOrder(o.id, { triggerPrice: D(48000), amount: D(250) });
    expect(n.id).not.toBe(o.id);
    expect(n.triggerPrice.toString()).toBe('48000');
    expect(n.limitPrice.toString()).toBe('48000');
    expect(n.status).toBe('active');
    const active = await w.ex.listActiveOrders(w.accountId);
    expect(active.map((x) => x.id)).toEqual([n.id]);
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    expect(hist.totalCount).toBe(0);
    await rejects(w.order({ ...base, amount: D('9750.000000001') }), ValidationError, 'insufficient_free_balance');
    await expect(w.order({ ...base, amount: D('9750') })).resolves.toBeTruthy();
  });
});

describe('PATCH of a close order', () => {
  it('a stop edited closer than the minimum distance is pushed out; beyond the liquidation price refused', async () => {
    const w = world({ market: { overrides: { ...FLAT, minStopTriggerDistanceRatio: '0.01' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const s = await w.order({ type: 'stop', direction: 'long', amount: pos!.size, triggerPrice: D(45000), positionId: pos!.idx });
    const e = await w.ex.editOrder(s.value.id, { triggerPrice: D(49900) });
    expect([e.triggerPrice.toString(), e.requestedTriggerPrice!.toString()]).toEqual(['49500', '49900']);
    await rejects(w.ex.editOrder(e.id, { triggerPrice: D(41000) }), ValidationError, 'trigger_price_lt_liquidation');
    const halved = await w.ex.editOrder(e.id, { amount: pos!.size.div(2) });
    expect(halved.amount.toString()).toBe(pos!.size.div(2).toDecimalPlaces(9, 1).toString());
    expect(halved.triggerPrice.toString()).toBe('49500');
  });
});

describe('a closed market', () => {
  it('refuses new orders with 403 market_closed', async () => {
    const w = world();
    w.engine.setMarketFlags(w.market.id, { isClosed: true });
    const err = await rejects(w.order(base), Error as never, 'market_closed');
    expect((err as unknown as { status: number }).status).toBe(403);
  });
});

describe('DELETE /orders/{id}', () => {
  it('cancels and releases the reserve; refused when not active, on a paused or close-only market', async () => {
    const w = world();
    const o = await w.order({ ...base, amount: D(10000) });
    await rejects(w.order({ ...base, amount: D(1) }), ValidationError, 'insufficient_free_balance');
    w.engine.setMarketFlags(w.market.id, { isPaused: true });
    await rejects(w.ex.cancelOrder(o.value.id), MarketPausedError, 'market_paused');
    w.engine.setMarketFlags(w.market.id, { isPaused: false, isCloseOnly: true });
    await rejects(w.ex.cancelOrder(o.value.id), MarketCloseOnlyError, 'market_close_only');
    w.engine.setMarketFlags(w.market.id, { isCloseOnly: false });
    w.engine.setAccountStatus(w.accountId, 'trading_locked_by_funded_limit');
    await w.ex.cancelOrder(o.value.id);
    await rejects(w.ex.cancelOrder(o.value.id), OrderNotActiveError, 'order_not_active');
    w.engine.setAccountStatus(w.accountId, 'active');
    await expect(w.order({ ...base, amount: D(10000) })).resolves.toBeTruthy();
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    expect(hist.data[0]!.status).toBe('canceled');
    expect(hist.data[0]!.reason).toBeNull();
  });
});

describe('a fresh engine refuses unknown callers', () => {
  it('401 for a user never registered', async () => {
    const w = world();
    const { UnauthorizedError } = await import('../../src/api/errors.js');
    await rejects(w.engine.exchangeFor('ghost').listRiskStatuses(), UnauthorizedError, 'unauthorized');
  });
});
