/**
 * `guard.check` in µs per intent: a realistic open (market entry, quote sizing, stop-loss) against an
 * account with two open positions (one with a stop), a pending limit entry and every rule on. Each
 * batch runs on a fresh guard (approved opens count against the next ones, so a long run on one guard
 * would end in cheaper denials); the figure is the median of the batch means.
 */
import { Dec } from '../src/core/decimal.js';
import { VirtualClock } from '../src/core/clock.js';
import type { Market, Order, Position, RiskStatus } from '../src/api/types.js';
import { RiskGuard } from '../src/risk/index.js';
import type { OpenIntent } from '../src/strategy/intents.js';
import { report } from './report.js';

const D = (v: string | number) => new Dec(String(v));
const ACCOUNT = 'acc-1';
const NOW = Date.UTC(2021, 4, 19, 12);

function btc(): Market {
  return {
    id: 'm-btc',
    config: { baseAsset: 'BTC', quoteAsset: 'USD', settlementToken: 'USD', type: 'perp', name: 'BTC', description: '', ticker: 'BTC/USD', imageLink: '', tags: [], category: 'crypto', priority: 1 },
    state: { indexPrice: D('43512.37'), blockTimestamp: NOW, fundingRate: D('0.0003'), nextFundingAt: NOW + 3_600_000, lastFundingAt: NOW - 3_600_000, vpiSpread: D('0.0002'), vpiMarketDepthLong: D(5_000_000), vpiMarketDepthShort: D(5_000_000), vpiCoefficientLong: D('0.05'), vpiCoefficientShort: D('0.05') },
    settings: { fee: D('0.00008'), minInitMarginRatio: D('0.2'), initMarginRatio: D('0.2'), maintenanceMarginRatio: D('0.01'), maxLeverageByAccount: { demo: D(5), real: D(5), tournament: D(5) }, spreadLimit: D('0.005'), maxPriceImpact: D('0.01'), maxPriceSpread: D('0.01'), maxOpenNotionalLong: D(1_000_000), maxOpenNotionalShort: D(1_000_000), minStopTriggerDistanceRatio: D('0.001'), isCloseOnly: false, isClosed: false, isPaused: false, isZeroSpread: false },
    change: { initialPrice: D(0), initialPrice1h: D(0), initialPrice4h: D(0) },
    schedule: null,
  };
}

function pos(idx: string, direction: 'long' | 'short', size: string, notional: string, margin: string): Position {
  const at = new Date(NOW - 7_200_000);
  return {
    idx, txId: idx, version: 3, openedAt: at, lastUpdatedAt: at, closedAt: null, type: direction, status: 'opened', market: 'm-btc', trader: ACCOUNT,
    size: D(size), notional: D(notional), fraction: D(0), margin: D(margin), pnl: D(0), funding: D(0), rolloverFee: D(0), settlementOraclePrice: D(1),
    fee: D('0.4'), feeRate: D('0.00008'), exchangedQuote: D(notional), exchangedBase: D(size), direction, eventName: 'increasePosition', pnlInEvent: D(0),
    rawPnlInEvent: D(0), profitAdjustmentApplied: false, holdingTimeMs: null, feeInEvent: D(0), fundingInEvent: D(0), rolloverFeeInEvent: D(0),
    executionFeeRate: D(0), executionFeeInEvent: D(0), executionFee: D(0), timestamp: at, isOnchain: true, roe: D(0), scalpingCoefficient: D(1), closeReason: null,
  };
}

function ord(o: Partial<Order>): Order {
  return {
    id: 'o', txId: 'o', index: 'o', trader: ACCOUNT, market: 'm-btc', status: 'active', type: 'limit', direction: 'long', triggerPrice: D(0), requestedTriggerPrice: null,
    stopPrice: D(0), limitPrice: D(0), stopTriggerPrice: D(0), takeTriggerPrice: D(0), trailingStopActivationPrice: D(0), trailingStopOffset: D(0),
    trailingStopOffsetPercent: D(0), leverage: D(3), positionId: null, parentOrderId: null, expiration: null, amount: D(2000), indexPrice: null,
    settlementOraclePrice: D(1), createdAt: new Date(NOW - 60_000), error: null, realizedPnl: null, rawRealizedPnl: null, profitAdjustmentApplied: false,
    executedAfterPause: false, sizeMode: 'quote', baseSize: null, reservedAmount: null, errorCode: null, reason: null, ...o,
  };
}

const risk: RiskStatus = {
  accountId: ACCOUNT, tradingDays: 4, currentBalance: D('101250.5'), currentEquity: D('101377.25'), dayStartEquity: D(100900), maxEquity: D(102000),
  periodStartEquity: null, maxPeriodDailyEquityDelta: null, maxPeriodDailyEquityDeltaAt: null, consistencyRuleApplies: false, consistencyRuleMet: null,
  consistencyRuleRatio: null, consistencyRuleLimit: D('0.3'), payoutBaselineBalance: D(100000), isPayoutBaselineRequirementMet: true,
};

/** A guard that has seen the account: two positions, a stop and, unless `entry` is false, a pending limit entry. */
function freshGuard(entry = true): RiskGuard {
  const clock = new VirtualClock(NOW);
  const guard = new RiskGuard({ clock, config: { tradesPerDay: { max: 1_000_000 }, openPositions: { max: 10 }, strategies: { bench: { allowScalping: true } } } });
  const m = btc();
  guard.observeMarket({ data: m, asset: 'BTC', marketId: m.id, price: m.state.indexPrice, takenAt: NOW, stale: false });
  const p1 = pos('p1', 'long', '0.1', '4300', '1000');
  const p2 = pos('p2', 'short', '0.05', '2200', '500');
  guard.observePositions({ data: [p1, p2], asset: 'BTC', accountId: ACCOUNT, takenAt: NOW, stale: false });
  guard.observeOrders({
    data: [
      ord({ id: 'stop-p1', type: 'stop', positionId: 'p1', triggerPrice: D(42000), amount: D('0.1'), leverage: null }),
      ...(entry ? [ord({ id: 'entry', type: 'limit', limitPrice: D(42500), triggerPrice: D(42500), stopTriggerPrice: D(41800) })] : []),
    ],
    accountId: ACCOUNT, takenAt: NOW, stale: false,
  });
  guard.observeRisk({ data: risk, accountId: ACCOUNT, takenAt: NOW, stale: false });
  return guard;
}

let n = 0;
function intent(): OpenIntent {
  n += 1;
  return {
    id: `i-${n}`, strategy: 'bench', accountId: ACCOUNT, asset: 'BTC', createdAt: NOW, kind: 'open', direction: 'long',
    entry: { type: 'market' }, sizing: { kind: 'quote', amount: D('250.5') }, leverage: D(3), stopLoss: D('42950.5'), takeProfit: D(45000),
  };
}

export async function run(): Promise<void> {
  const batch = 40;
  const batches = 600;
  const means: number[] = [];
  let approved = 0;
  for (let b = 0; b < batches; b++) {
    const guard = freshGuard();
    const intents = Array.from({ length: batch }, intent);
    const t0 = process.hrtime.bigint();
    for (const i of intents) if (guard.check(i).verdict === 'approved') approved += 1;
    const dt = Number(process.hrtime.bigint() - t0) / 1000 / batch;
    if (b >= 50) means.push(dt); // the first batches warm the JIT
  }
  if (approved !== batch * batches) throw new Error(`guard bench: expected every check approved, got ${approved} of ${batch * batches}`);
  means.sort((a, b) => a - b);
  report('guard.check', means[Math.floor(means.length / 2)]!, 'us/intent');

  // The update path: a new market snapshot re-marks the account (two positions, a stop, a pending entry)
  // and re-runs the kill-switch test. Prices walk so every update is a real change.
  const m = btc();
  const snaps = Array.from({ length: 1000 }, (_, i) => {
    const price = D('43512.37').plus(D(i % 50).minus(25));
    const data = { ...m, state: { ...m.state, indexPrice: price } };
    return { data, asset: 'BTC', marketId: m.id, price, takenAt: NOW + i, stale: false };
  });
  const guard = freshGuard();
  report('guard.observeMarket', perUpdate(snaps, (s) => guard.observeMarket(s)), 'us/update');
  // Without the pending entry the book can be bounded: prices that cannot trip anything take the
  // quiet path (risk/quiet.ts) instead of a full evaluation.
  const bounded = freshGuard(false);
  report('guard.observeMarket.quiet', perUpdate(snaps, (s) => bounded.observeMarket(s)), 'us/update');

  // The risk path: a new risk status re-marks equity and re-runs the kill-switch test; the positions'
  // and entries' worst cases did not change, so they need not be derived again.
  const risks = Array.from({ length: 1000 }, (_, i) => ({
    data: { ...risk, currentEquity: risk.currentEquity.plus(i % 50) },
    accountId: ACCOUNT,
    takenAt: NOW + i,
    stale: false,
  }));
  report('guard.observeRisk', perUpdate(risks, (s) => guard.observeRisk(s)), 'us/update');
}

/** µs per update: the median of 50 rounds over `updates` (after 10 rounds that warm the JIT). */
function perUpdate<T>(updates: readonly T[], observe: (update: T) => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < 60; r++) {
    const t0 = process.hrtime.bigint();
    for (const u of updates) observe(u);
    if (r >= 10) rounds.push(Number(process.hrtime.bigint() - t0) / 1000 / updates.length);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!;
}
