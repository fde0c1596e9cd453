/**
 * `propbot backtest`: a LocalSession at full speed, with everything a report needs collected on the
 * way (fills and trades from the engine's position events, equity once per virtual minute, the
 * guard's denials, the candles replayed) and turned into a `BacktestResult`.
 */
import type { Decimal } from 'decimal.js';
import type { PositionEvent } from '../api/types.js';
import { objectArray } from '../core/arrays.js';
import { Dec, ZERO } from '../core/decimal.js';
import { roundFp9, taggedFp9, toFp9Raw } from '../core/fp9.js';
import { fp9Quotient } from '../engine/fixed.js';
import { StreamingCandles } from '../report/downsample.js';
import { Fp9EquitySample, Fp9EquitySeries } from '../report/equity-sample.js';
import { ENGINE_PRESETS, mergePresets, type EnginePresets } from '../engine/index.js';
import type { ReadSummary } from '../feed/files/types.js';
import type {
  BacktestResult,
  ChallengeInfo,
  DataFileReport,
  DenialRecord,
  EquitySample,
  FillRecord,
  FundingRecord,
  TradeRecord,
} from '../report/types.js';
import type { Decision } from '../risk/types.js';
import type { StrategyStatus } from '../strategy/runner.js';
import type { Origin } from '../report/origin.js';
import type { GuardActionRecord } from '../report/types.js';
import { Attribution, attributedEvent, type AttributedEvent } from './attribution.js';
import { DEFAULT_RISK_GUARD_CONFIG } from '../risk/config.js';
import { LocalSession, type LocalSessionOptions, type RunStats } from './local-session.js';
import type { BacktestRules } from './scenario.js';
import type { ReplayStep } from './replay.js';

export interface BacktestOptions extends Omit<LocalSessionOptions, 'onDecision' | 'onFinal'> {
  /** Run name, the report's title. */
  readonly name?: string;
  /** Called after every step (progress bars). */
  readonly onProgress?: (progress: { candles: number; time: number }) => void;
  /** Keep the replayed candles for the report's price chart (default true). */
  readonly keepPrices?: boolean;
  /**
   * Start of the reported run (unix ms): the replay from `from` up to here only warms the strategies
   * up (see `LocalStrategySpec.window`), so equity, prices and the day count start here.
   */
  readonly reportFrom?: number;
  /** Called with every equity sample (once per virtual minute) and the account's phase then. */
  readonly onSample?: (sample: EquitySample, phase: string) => void;
  readonly signal?: AbortSignal;
  /** `off`: no challenge rules in the engine and no risk guard (see `BACKTEST_RULES`). Default `on`. */
  readonly rules?: BacktestRules;
}

export interface BacktestOutcome {
  readonly result: BacktestResult;
  readonly stats: RunStats;
  readonly session: LocalSession;
}

interface OpenTrade {
  positionId: string;
  market: string;
  direction: 'long' | 'short';
  openedAt: number;
  entryPrice: Decimal;
  size: Decimal;
  realizedPnl: Decimal;
  fees: Decimal;
  funding: Decimal;
  exitPrice: Decimal | null;
  closedAt: number | null;
  status: string;
  closeReason: string | null;
  /** The fill that closed it, to attribute once the run is over. */
  closedBy: number | null;
}

/**
 * quote / base rounded half-even to 9 places: by integer division when both are the engine's fp9
 * Decimals (fp9Quotient, the same figure), else by Decimal division.
 */
function priceOf(quote: Decimal, base: Decimal): Decimal {
  const q = taggedFp9(quote);
  const b = taggedFp9(base);
  return q !== undefined && b !== undefined ? fp9Quotient(q, b, 'half-even') : roundFp9(quote.div(base), 'half-even');
}

const FILL_EVENTS = new Set(['increasePosition', 'closePosition', 'liquidate', 'forceClose']);
const PROTECTIVE_TYPES: ReadonlySet<string> = new Set(['stop', 'take', 'trailing_stop']);

export async function runBacktest(options: BacktestOptions): Promise<BacktestOutcome> {
  const denials: DenialRecord[] = objectArray();
  const rulesOff = options.rules === 'off';
  const session = await LocalSession.create({
    ...options,
    quietSteps: options.quietSteps ?? true,
    ...(rulesOff ? withoutRules(options) : {}),
    onDecision: (d: Decision) => {
      if (d.verdict === 'denied') denials.push({ at: d.at, intentId: d.intent.id, code: d.code, reason: d.reason, rule: d.rule });
    },
  });
  const { engine, accountId } = session;
  const attribution = new Attribution(session.executor);
  const guardActions: GuardActionRecord[] = objectArray();
  const actionsSub = session.guard.actions$.subscribe((a) => {
    if (a.accountId !== accountId) return;
    const { accountId: _, ...record } = a;
    guardActions.push(record);
  });
  const assetOf = new Map([...session.markets.values()].map((m) => [m.marketId, m.asset]));

  const fills: FillRecord[] = objectArray();
  const funding: FundingRecord[] = objectArray();
  // Attributed after the run (see below): each fill's event is kept as what attributing it reads.
  const fillEvents: AttributedEvent[] = objectArray();
  const trades = new Map<string, OpenTrade>();
  // A phase change (evaluation passed, say) resets the balance to the initial size. The engine's
  // verdict is kept as a transition, and the equity curve stays continuous: what the account had
  // before the reset is carried as an offset, so drawdown and pnl measure trading, not the reset.
  const startPhase = engine.getAccount(accountId)?.currentPhase ?? 'active_evaluation';
  const transitions: Array<{ at: number; from: string; to: string }> = objectArray();
  // fp9 like the engine's figures it is added to (balances are whole fp9 units).
  let offset = 0n;
  const initialRaw = toFp9Raw(options.balance, 'exact', 'balance');
  const unsubscribe = engine.onEvent((e) => {
    if (e.kind === 'account') {
      const ev = e.event;
      if (ev.accountId === accountId && ev.eventType === 'phase_passed') {
        const before = engine.accountFigures(accountId)?.balance;
        if (before !== undefined) offset += before - initialRaw;
        transitions.push({ at: e.at, from: String(ev.payload['fromPhase']), to: String(ev.payload['toPhase']) });
      }
      return;
    }
    if (e.kind === 'order') {
      if (e.order.trader === accountId) attribution.observeOrder(e.order);
      return;
    }
    if (e.kind !== 'position') return;
    onPositionEvent(e.event, e.at);
  });

  function onPositionEvent(p: PositionEvent, at: number): void {
    if (p.trader !== accountId) return;
    const market = assetOf.get(p.market) ?? p.market;
    let trade = trades.get(p.idx);
    if (!trade) {
      trade = {
        positionId: p.idx,
        market,
        direction: p.direction,
        openedAt: at,
        entryPrice: ZERO,
        size: ZERO,
        realizedPnl: ZERO,
        fees: ZERO,
        funding: ZERO,
        exitPrice: null,
        closedAt: null,
        status: 'open',
        closeReason: null,
        closedBy: null,
      };
      trades.set(p.idx, trade);
    }
    if (p.eventName === 'payFunding') {
      trade.funding = trade.funding.plus(p.fundingInEvent);
      funding.push({ time: at, market, amount: p.fundingInEvent });
      return;
    }
    if (!FILL_EVENTS.has(p.eventName)) return;
    // Execution price as the chart events define it (quote over base), to fp9 like every wire price.
    const price = p.exchangedBase.isZero() ? ZERO : priceOf(p.exchangedQuote, p.exchangedBase);
    const closing = p.eventName !== 'increasePosition';
    trade.fees = trade.fees.plus(p.feeInEvent);
    if (closing) {
      trade.realizedPnl = trade.realizedPnl.plus(p.pnlInEvent);
      trade.exitPrice = price;
    } else {
      if (p.size.gt(trade.size)) trade.size = p.size;
      trade.entryPrice = p.size.isZero() ? price : priceOf(p.notional, p.size);
    }
    if (p.status !== 'opened') {
      trade.closedAt = at;
      trade.status = p.status === 'liquidated' ? 'liquidated' : p.eventName === 'forceClose' ? 'force_closed' : 'closed';
      trade.closeReason = p.closeReason;
      trade.closedBy = fills.length;
    }
    const fill: FillRecord = {
      time: at,
      market,
      direction: p.direction,
      type: p.order?.type ?? (p.eventName === 'liquidate' ? 'liquidation' : 'force_close'),
      action: chartAction(p),
      price,
      size: p.exchangedBase,
      fee: p.feeInEvent,
      realizedPnl: closing ? p.pnlInEvent : null,
      intentId: null,
      positionId: p.idx,
      ...(p.order ? { orderId: p.order.id } : {}),
      trigger: p.order && PROTECTIVE_TYPES.has(p.order.type) && !p.order.triggerPrice.isZero() ? p.order.triggerPrice : null,
      indexPrice: p.order?.indexPrice ?? null,
    };
    fills.push(fill);
    fillEvents.push(attributedEvent(p));
  }

  // Equity once per virtual minute (the engine's own sampling step), read as the fp9 integer the
  // engine holds and kept in columns (see Fp9EquitySeries); and the candles as replayed, thinned as
  // they stream (see StreamingCandles). Neither grows by more than 16 bytes a minute of the run.
  const equity = new Fp9EquitySeries(initialRaw);
  let lastMinute = -1;
  const keepPrices = options.keepPrices ?? true;
  const candles = new Map<string, StreamingCandles>();
  let progressCandles = 0;
  const reportFrom = options.reportFrom ?? Number.NEGATIVE_INFINITY;
  // Read once: the caller's options are often a spread, an object whose map is its own (see
  // LocalSession.run), and these are called on every minute and candle.
  const { onSample, onProgress } = options;
  const afterStep = (step: ReplayStep): void => {
    const t = step.time;
    if (t < reportFrom) return;
    const minute = Math.floor(t / 60_000);
    if (minute !== lastMinute) {
      lastMinute = minute;
      const equityRaw = engine.accountEquity(accountId);
      if (equityRaw !== undefined) {
        const raw = equityRaw + offset;
        equity.push(t, raw);
        onSample?.(new Fp9EquitySample(t, raw), engine.getAccount(accountId)?.currentPhase ?? startPhase);
      }
    }
    if (keepPrices) {
      let series = candles.get(step.market.asset);
      if (!series) candles.set(step.market.asset, (series = new StreamingCandles()));
      series.tick(t, step.priceFp9, step.candleStart);
    }
    if (onProgress && step.candleStart) onProgress({ candles: ++progressCandles, time: t });
  };

  const started = performance.now();
  const stats = await session.run({ afterStep, ...(options.signal ? { signal: options.signal } : {}) });
  await session.finish();
  const wallMs = performance.now() - started;
  unsubscribe();

  actionsSub.unsubscribe();
  attribution.close();
  // Attributed once every request has returned: a market order fills before the executor tracks it.
  const attributed = fills.map((f, i) => {
    const origin = attribution.origin(fillEvents[i]!);
    return Object.assign({}, f, { intentId: origin.intentId ?? null, origin });
  });
  const finalStatus = engine.riskStatus(accountId);
  const endTime = stats.lastTime ?? session.clock.now();
  if (finalStatus && (equity.length === 0 || equity.at(-1)!.time !== endTime)) {
    equity.push(endTime, toFp9Raw(finalStatus.currentEquity, 'exact') + offset);
  }
  const result: BacktestResult = {
    name: options.name ?? 'backtest',
    strategy: strategiesLabel(session.runner.status()),
    startTime: Math.max(stats.firstTime ?? session.clock.now(), Math.min(options.reportFrom ?? Number.NEGATIVE_INFINITY, endTime)),
    endTime,
    initialBalance: options.balance,
    equity,
    fills: attributed,
    trades: [...trades.values()].map((t) => toTradeRecord(t, t.closedBy === null ? undefined : attributed[t.closedBy]!.origin)),
    denials,
    guardActions,
    funding,
    perf: { snapshots: stats.ticks, quietSteps: stats.quiet, candles: stats.candles, wallMs: Math.round(wallMs) },
    // Without rules there is no challenge to judge, nor floors to draw.
    ...(rulesOff ? { rules: 'off' as const } : { challenge: challengeInfo(session, mergePresets(ENGINE_PRESETS, options.presets), startPhase, transitions) }),
    prices: [...candles.entries()].map(([market, c]) => ({ market, candles: c.candles() })),
    failures: session.runner
      .status()
      .filter((s) => s.state === 'failed')
      .map((s) => ({ strategy: s.name, at: s.endedAt ?? endTime, failedIn: s.failedIn ?? '', message: s.error ?? '', location: s.errorLocation })),
    data: [...session.readers.entries()].map(([market, reader]) => dataReport(market, reader.summary)),
  };
  return { result, stats, session };
}

/**
 * The run without the challenge rules (the phase's drawdown limits, target and consistency rule) and
 * with every rule of the risk guard, its kill switch included, switched off.
 */
function withoutRules(options: BacktestOptions): Pick<LocalSessionOptions, 'presets' | 'risk'> {
  const phase = options.phase ?? ENGINE_PRESETS.account.initialPhase[options.accountType ?? 'real'];
  const noRules = {
    profitTarget: null,
    maxDailyDrawdown: null,
    maxTotalDrawdown: null,
    maxTrailingTotalDrawdown: null,
    consistencyLimit: null,
    minTradingDays: null,
  };
  // Every block of the guard's configuration that has an `enabled` switch: each rule and the kill switch.
  const risk: Record<string, { enabled: false }> = {};
  for (const [key, block] of Object.entries(DEFAULT_RISK_GUARD_CONFIG)) {
    if (typeof block === 'object' && block !== null && 'enabled' in block) risk[key] = { enabled: false };
  }
  return {
    presets: { ...options.presets, phases: { ...options.presets?.phases, [phase]: { ...options.presets?.phases?.[phase], ...noRules } } },
    risk,
  };
}

/** Bad rows and gaps the report lists one by one (the counts are always whole). */
const DATA_SAMPLES = 10;

function dataReport(market: string, s: ReadSummary): DataFileReport {
  return {
    market,
    file: s.file,
    layout: s.layout,
    periodMs: s.periodMs,
    timeUnit: s.timeUnit,
    rows: s.rows,
    badRows: s.badRows,
    badRowSamples: s.badRowSamples.slice(0, DATA_SAMPLES).map((b) => ({ line: b.line, reason: b.reason, message: b.message })),
    gaps: s.gaps,
    missingPeriods: s.missingPeriods,
    gapSamples: s.gapSamples.slice(0, DATA_SAMPLES).map((g) => ({ afterTime: g.afterTime, nextTime: g.nextTime, missingPeriods: g.missingPeriods, line: g.line })),
    sessionBreaks: s.sessionBreaks,
    roundedRows: s.roundedRows,
    firstRoundedLine: s.firstRoundedLine,
  };
}

function toTradeRecord(t: OpenTrade, closeOrigin: Origin | undefined): TradeRecord {

  return {
    positionId: t.positionId,
    market: t.market,
    direction: t.direction,
    openedAt: t.openedAt,
    closedAt: t.closedAt,
    entryPrice: t.entryPrice,
    exitPrice: t.exitPrice,
    size: t.size,
    realizedPnl: t.realizedPnl,
    fees: t.fees,
    funding: t.funding,
    status: t.status,
    closeReason: t.closeReason ?? closeOrigin?.kind ?? null,
    ...(closeOrigin !== undefined ? { closeOrigin } : {}),
  };
}

function chartAction(p: PositionEvent): string {
  if (p.eventName === 'increasePosition') return p.version <= 1 ? 'open' : 'increase';
  if (p.eventName === 'liquidate') return 'liquidation';
  return p.status === 'opened' ? 'decrease' : 'close';
}

function challengeInfo(
  session: LocalSession,
  presets: EnginePresets,
  phase: string,
  transitions: ReadonlyArray<{ at: number; from: string; to: string }>,
): ChallengeInfo | undefined {
  const account = session.engine.getAccount(session.accountId);
  const rules = presets.phases[phase];
  if (!account || !rules) return undefined;
  const pct = (v: string | null): Decimal | null => (v === null ? null : new Dec(v));
  const failure = account.failureReason && account.failedAt ? { rule: account.failureReason, at: account.failedAt.getTime() } : null;
  // The rules of the phase the run started in, which is the phase the verdict is about.
  return {
    phase,
    profitTargetPct: pct(rules.profitTarget),
    maxDailyDrawdownPct: pct(rules.maxDailyDrawdown),
    maxTotalDrawdownPct: pct(rules.maxTotalDrawdown),
    maxTrailingDrawdownPct: pct(rules.maxTrailingTotalDrawdown),
    minProfitableDays: rules.minTradingDays,
    consistencyLimitPct: pct(rules.consistencyLimit),
    profitableDayPct: new Dec(rules.profitableDayThreshold),
    failure,
    transitions: [...transitions, ...(failure ? [{ at: failure.at, from: account.currentPhase, to: 'failed' }] : [])],
  };
}

/**
 * The report's `strategy`: each plugin with its version once, and the names its instances run under
 * when they are not the plugin's own (`sma-cross@1.0.0 (btc, eth)`; a walk-forward's windows).
 */
export function strategiesLabel(status: ReadonlyArray<Pick<StrategyStatus, 'name' | 'strategy' | 'version'>>): string {
  const plugins = new Map<string, { strategy: string; names: string[] }>();
  for (const s of status) {
    const key = `${s.strategy}@${s.version}`;
    const entry = plugins.get(key) ?? { strategy: s.strategy, names: [] };
    entry.names.push(s.name);
    plugins.set(key, entry);
  }
  return [...plugins]
    .map(([plugin, { strategy, names }]) => (names.length === 1 && names[0] === strategy ? plugin : `${plugin} (${names.join(', ')})`))
    .join(', ');
}
