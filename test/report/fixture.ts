/**
 * A backtest result built from real candles (the shipped Coinbase BTC hourly file): a position of 0.1 BTC
 * alternating long and short every 360 candles, equity sampled each candle, fees at 0.008% per side. The numbers are
 * computed here with Decimal, independently of the report code, so tests can check the report
 * against them.
 */
import { Dec, ZERO } from '../../src/core/decimal.js';
import type { Decimal } from 'decimal.js';
import { readCandleFile } from '../../src/feed/files/index.js';
import type { BacktestResult, EquitySample, FillRecord, PriceCandle, TradeRecord } from '../../src/report/index.js';
import { COINBASE_BTC_1H } from '../data.js';

export async function btcResult(count: number): Promise<BacktestResult> {
  const initial = new Dec(10_000);
  const size = new Dec('0.1');
  const feeRate = new Dec('0.00008');
  const equity: EquitySample[] = [];
  const fills: FillRecord[] = [];
  const trades: TradeRecord[] = [];
  const candles: PriceCandle[] = [];
  let balance = initial;
  let open: { direction: 'long' | 'short'; entry: Decimal; at: number; fee: Decimal; id: string } | undefined;
  let n = 0;
  let k = 0;
  for await (const row of readCandleFile(COINBASE_BTC_1H)) {
    if (n >= count) break;
    const price = new Dec(row.close);
    candles.push({ time: row.time, open: new Dec(row.open), high: new Dec(row.high), low: new Dec(row.low), close: price });
    if (n % 360 === 30 && !open) {
      const direction = k++ % 2 === 0 ? 'long' : 'short';
      const fee = size.times(price).times(feeRate);
      balance = balance.minus(fee);
      open = { direction, entry: price, at: row.time, fee, id: `pos-${k}` };
      fills.push({ time: row.time, market: 'BTC', direction, type: 'market', action: 'open', price, size, fee, realizedPnl: null, intentId: `intent-${k}-open`, positionId: open.id });
    } else if (n % 360 === 300 && open) {
      const sign = open.direction === 'long' ? 1 : -1;
      const pnl = price.minus(open.entry).times(size).times(sign);
      const fee = size.times(price).times(feeRate);
      balance = balance.plus(pnl).minus(fee);
      fills.push({ time: row.time, market: 'BTC', direction: open.direction, type: 'market', action: 'close', price, size, fee, realizedPnl: pnl, intentId: `intent-${k}-close`, positionId: open.id });
      trades.push({
        positionId: open.id,
        market: 'BTC',
        direction: open.direction,
        openedAt: open.at,
        closedAt: row.time,
        entryPrice: open.entry,
        exitPrice: price,
        size,
        realizedPnl: pnl,
        fees: open.fee.plus(fee),
        funding: ZERO,
        status: 'closed',
        closeReason: null,
      });
      open = undefined;
    }
    const unrealised = open ? price.minus(open.entry).times(size).times(open.direction === 'long' ? 1 : -1) : ZERO;
    equity.push({ time: row.time, equity: balance.plus(unrealised) });
    n += 1;
  }
  return {
    name: 'BTC <alternating> & "co"',
    strategy: 'fixture-alternator',
    startTime: candles[0]!.time,
    endTime: candles.at(-1)!.time,
    initialBalance: initial,
    equity,
    fills,
    trades,
    denials: [
      { at: candles[10]!.time, intentId: 'intent-x', code: 'daily_drawdown_headroom', reason: 'would risk <img src=x onerror=alert(1)>', rule: 'dailyDrawdown' },
    ],
    perf: { snapshots: n, candles: n, wallMs: 1234 },
    challenge: {
      phase: 'funded',
      profitTargetPct: null,
      maxDailyDrawdownPct: new Dec(5),
      maxTotalDrawdownPct: new Dec(10),
      maxTrailingDrawdownPct: null,
      minProfitableDays: null,
      consistencyLimitPct: new Dec(30),
      profitableDayPct: new Dec('0.5'),
      failure: null,
    },
    prices: [{ market: 'BTC', candles }],
  };
}
