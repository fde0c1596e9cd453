/**
 * Canned wire JSON for every API resource, field for field as the spec lists them (fp9 raw strings,
 * ISO date-times, unix numbers). Each builder takes overrides so a test states only what it cares
 * about. Reusable by any suite that needs realistic responses (client, sandbox conformance, feeds).
 */
import type {
  WireAccount,
  WireAccountEvent,
  WireChartEvent,
  WireChartEventBucket,
  WireEquityPoint,
  WireMarket,
  WireOrder,
  WirePosition,
  WirePositionEvent,
  WireRiskStatus,
  WireScalpingCoefficient,
} from '../../src/api/wire.js';

export const IDS = {
  account: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
  otherAccount: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
  user: '0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e',
  market: 'c0ffee00-1111-4222-8333-444455556666',
  order: '9d8c7b6a-5f4e-4d3c-a2b1-0f9e8d7c6b5a',
  order2: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  position: 'e1d2c3b4-a5f6-4e7d-b8c9-d0e1f2a3b4c5',
  event: '5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  payment: 'a1b2c3d4-e5f6-4a7b-9c8d-e9f0a1b2c3d4',
} as const;

/** `1.5` → `"1500000000"`: fp9 raw of a decimal literal, for readable fixtures. */
export function fp9(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [int = '0', frac = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  if (frac.length > 9) throw new Error(`fixture fp9(${decimal}): more than 9 places`);
  const raw = BigInt(int + frac.padEnd(9, '0'));
  return raw === 0n ? '0' : `${negative ? '-' : ''}${raw}`;
}

export function wireOrder(overrides: Partial<WireOrder> = {}): WireOrder {
  const id = overrides.id ?? IDS.order;
  return {
    id,
    txId: id,
    index: id,
    trader: IDS.account,
    market: IDS.market,
    status: 'active',
    type: 'limit',
    direction: 'long',
    triggerPrice: fp9('64000.5'),
    requestedTriggerPrice: null,
    stopPrice: '0',
    limitPrice: fp9('64000.5'),
    stopTriggerPrice: fp9('62000'),
    takeTriggerPrice: fp9('70000'),
    trailingStopActivationPrice: '0',
    trailingStopOffset: '0',
    trailingStopOffsetPercent: '0',
    leverage: fp9('10'),
    positionId: null,
    parentOrderId: null,
    expiration: null,
    amount: fp9('1000'),
    indexPrice: null,
    settlementOraclePrice: fp9('1'),
    createdAt: '2026-03-02T10:15:30.123Z',
    error: null,
    realizedPnl: null,
    rawRealizedPnl: null,
    profitAdjustmentApplied: false,
    executedAfterPause: false,
    sizeMode: 'quote',
    baseSize: null,
    reservedAmount: null,
    errorCode: null,
    reason: null,
    ...overrides,
  };
}

export function wirePosition(overrides: Partial<WirePosition> = {}): WirePosition {
  const idx = overrides.idx ?? IDS.position;
  return {
    idx,
    txId: idx,
    version: 3,
    openedAt: '2026-03-02T09:00:00.000Z',
    lastUpdatedAt: '2026-03-02T10:00:00.000Z',
    closedAt: null,
    type: 'long',
    status: 'opened',
    market: IDS.market,
    trader: IDS.account,
    size: fp9('0.15625'),
    notional: fp9('10000'),
    fraction: '0',
    margin: fp9('987.654321'),
    pnl: fp9('-12.5'),
    funding: fp9('-0.000000001'),
    rolloverFee: '0',
    settlementOraclePrice: fp9('1'),
    fee: fp9('10'),
    feeRate: fp9('0.001'),
    exchangedQuote: fp9('5000'),
    exchangedBase: fp9('0.078125'),
    direction: 'long',
    eventName: 'increasePosition',
    pnlInEvent: '0',
    rawPnlInEvent: '0',
    profitAdjustmentApplied: false,
    holdingTimeMs: null,
    feeInEvent: fp9('5'),
    fundingInEvent: '0',
    rolloverFeeInEvent: '0',
    executionFeeRate: '0',
    executionFeeInEvent: '0',
    executionFee: '0',
    timestamp: '2026-03-02T10:00:00.000Z',
    isOnchain: true,
    roe: fp9('-0.0125'),
    scalpingCoefficient: fp9('1'),
    closeReason: null,
    ...overrides,
  };
}

export function wirePositionEvent(overrides: Partial<WirePositionEvent> = {}): WirePositionEvent {
  return {
    ...wirePosition(),
    order: wireOrder({ status: 'executed', type: 'market', indexPrice: fp9('64000'), triggerPrice: '0' }),
    ...overrides,
  };
}

export function wireChartEvent(overrides: Partial<WireChartEvent> = {}): WireChartEvent {
  return {
    asset: 'BTC',
    direction: 'long',
    eventName: 'open',
    executedAt: 1772445600,
    price: fp9('64000.25'),
    size: fp9('0.015625'),
    ...overrides,
  };
}

export function wireChartEventBucket(overrides: Partial<WireChartEventBucket> = {}): WireChartEventBucket {
  return {
    time: 1772445600,
    buy: { totalCount: 7, events: [wireChartEvent(), wireChartEvent({ eventName: 'increase', executedAt: 1772445590 })] },
    sell: { totalCount: 1, events: [wireChartEvent({ direction: 'long', eventName: 'close', executedAt: 1772445630 })] },
    ...overrides,
  };
}

export function wireRiskStatus(overrides: Partial<WireRiskStatus> = {}): WireRiskStatus {
  return {
    accountId: IDS.account,
    tradingDays: 4,
    currentBalance: fp9('100250.75'),
    currentEquity: fp9('100310.123456789'),
    dayStartEquity: fp9('100000'),
    maxEquity: fp9('100400'),
    periodStartEquity: fp9('100000'),
    maxPeriodDailyEquityDelta: fp9('250.5'),
    maxPeriodDailyEquityDeltaAt: '2026-03-01T00:00:00.000Z',
    consistencyRuleApplies: true,
    consistencyRuleMet: true,
    consistencyRuleRatio: fp9('0.25'),
    consistencyRuleLimit: fp9('0.3'),
    payoutBaselineBalance: fp9('100000'),
    isPayoutBaselineRequirementMet: true,
    ...overrides,
  };
}

export function wireEquityPoint(overrides: Partial<WireEquityPoint> = {}): WireEquityPoint {
  return {
    timestamp: 1772445600000,
    volume: fp9('100310.5'),
    phaseIndex: 0,
    phaseStartEquity: fp9('100000'),
    ...overrides,
  };
}

export function wireScalpingCoefficient(overrides: Partial<WireScalpingCoefficient> = {}): WireScalpingCoefficient {
  return {
    amount: fp9('2'),
    amountRegular: fp9('1'),
    activeSince: '2026-03-02T10:00:00.000Z',
    activeUntil: '2026-03-02T10:05:00.000Z',
    ...overrides,
  };
}

export function wireMarket(overrides: Partial<WireMarket> = {}): WireMarket {
  return {
    id: IDS.market,
    config: {
      baseAsset: 'BTC',
      quoteAsset: 'USD',
      settlementToken: 'USDC',
      type: 'vpi',
      name: 'Bitcoin',
      description: 'Bitcoin perpetual',
      ticker: 'BTC/USD',
      imageLink: 'https://example.invalid/btc.png',
      tags: ['crypto', 'majors'],
      category: 'crypto',
      priority: 100,
    },
    state: {
      indexPrice: fp9('64000.5'),
      blockTimestamp: 1772445600123,
      fundingRate: fp9('0.0001'),
      nextFundingAt: 1772449200000,
      lastFundingAt: 1772445600000,
      vpiSpread: fp9('0.0002'),
      vpiMarketDepthLong: fp9('5000000'),
      vpiMarketDepthShort: fp9('4500000'),
      vpiCoefficientLong: fp9('0.5'),
      vpiCoefficientShort: fp9('0.5'),
    },
    settings: {
      fee: fp9('0.001'),
      minInitMarginRatio: fp9('0.01'),
      initMarginRatio: fp9('0.1'),
      maintenanceMarginRatio: fp9('0.005'),
      maxLeverageByAccount: { demo: fp9('100'), real: fp9('50'), tournament: fp9('20') },
      spreadLimit: fp9('0.01'),
      maxPriceImpact: fp9('0.02'),
      maxPriceSpread: fp9('0.05'),
      maxOpenNotionalLong: fp9('10000000'),
      maxOpenNotionalShort: '0',
      minStopTriggerDistanceRatio: fp9('0.001'),
      isCloseOnly: false,
      isClosed: false,
      isPaused: false,
      isZeroSpread: false,
    },
    change: { initialPrice: 63000.25, initialPrice1h: 63900, initialPrice4h: 0 },
    schedule: null,
    ...overrides,
  };
}

export function wireAccount(overrides: Partial<WireAccount> = {}): WireAccount {
  return {
    accountId: IDS.account,
    userId: IDS.user,
    paymentId: IDS.payment,
    challengeId: 'challenge-100k',
    tournamentId: null,
    type: 'real',
    initialPhase: 'active_evaluation',
    currentPhase: 'active_evaluation',
    status: 'active',
    profitTarget: '8',
    maxDailyDrawdown: '5',
    maxTotalDrawdown: '10',
    maxTrailingTotalDrawdown: null,
    drawdownBase: null,
    maxDrawdownStop: null,
    minTradingDays: 4,
    suspendedUntil: null,
    accountBalance: fp9('100250.75'),
    initialAccountBalance: fp9('100000'),
    maxEquity: fp9('100400'),
    dayStartEquity: fp9('100000'),
    profitableDays: 2,
    prevPeriodProfitableDays: 0,
    createdAt: '2026-02-20T12:00:00.000Z',
    failureReason: null,
    fundedAt: null,
    failedAt: null,
    transitionReviewAt: null,
    currentWithdrawalPeriodStartedAt: null,
    fundedLimitUnlockedAt: null,
    maxWithdrawalAmount: '0',
    payoutBaselineBalance: fp9('100000'),
    isActiveWithdrawalInPeriod: false,
    profitSplitPercent: 80,
    debt: '0',
    dailyDrawdownProtection: null,
    aiFailedReport: false,
    apiTrading: true,
    availableMarkets: 'all',
    antifraudStatus: 'ok',
    tradingLockReason: null,
    tournament: null,
    restore: {},
    ...overrides,
  };
}

export function wireAccountEvent(overrides: Partial<WireAccountEvent> = {}): WireAccountEvent {
  return {
    eventType: 'buy_challenge',
    payload: { amount: fp9('549.99'), provider: 'card' },
    id: IDS.event,
    accountId: IDS.account,
    createdAt: '2026-02-20T12:00:00.000Z',
    account: wireAccount(),
    ...overrides,
  };
}
