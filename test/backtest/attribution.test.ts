/**
 * Every fill and trade of a report names its origin: a strategy's open and close (with the intent),
 * a stop loss, a take profit, the guard's kill switch (recorded as a guard action with the figures that
 * tripped it) and funding. A scripted strategy on a scripted price path makes each of them happen once.
 */
import { rmSync } from 'node:fs';
import { EMPTY, mergeMap, of } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Direction, Order, PositionEvent } from '../../src/api/types.js';
import { Dec } from '../../src/core/decimal.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { renderReportHtml } from '../../src/report/html.js';
import { tradesCsv } from '../../src/report/trades-csv.js';
import { attributedEvent } from '../../src/runtime/attribution.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { tempDir, writeCandles, type SynthCandle } from './helpers.js';

const dir = tempDir('pb-attr-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START = Date.UTC(2021, 0, 4, 7, 50);
/** Price of minute i: 100, up to 105 (i 3..10), down to 103 (i 18..22), down to 95 (i 26..40). */
function priceAt(i: number): number {
  if (i < 3) return 100;
  if (i <= 10) return 100 + (5 * (i - 2)) / 8;
  if (i < 18) return 105;
  if (i <= 22) return 105 - (2 * (i - 17)) / 5;
  if (i < 26) return 103;
  if (i <= 40) return 103 - (8 * (i - 25)) / 15;
  return 95;
}
const candles: SynthCandle[] = Array.from({ length: 46 }, (_, i) => {
  const p = priceAt(i).toFixed(4);
  return { time: START + i * 60_000, open: p, high: p, low: p, close: p };
});

const script = defineStrategy({
  name: 'script',
  version: '1.0.0',
  assets: ['BTC'],
  setup(ctx) {
    let n = -1;
    const at = (pct: string) => ctx.latest.market('BTC')!.price.times(pct).toDecimalPlaces(9, Dec.ROUND_HALF_EVEN);
    const open = (direction: Direction, quote: number, leverage: number, extra: { stopLoss?: Dec; takeProfit?: Dec; note?: string } = {}) =>
      ctx.intents.open(direction, { size: { quote }, leverage, ...extra });
    return ctx.candles('BTC', '1m').pipe(
      mergeMap(() => {
        n += 1;
        const out: OrderIntent[] = [];
        if (n === 1) out.push(open('long', 15_000, 5, { note: 'first long' }));
        if (n === 15) out.push(ctx.intents.close({ direction: 'long', note: 'the script says close' }));
        if (n === 17) out.push(open('long', 2_000, 2, { stopLoss: at('0.99'), note: 'long with a stop' }), open('short', 2_000, 2, { takeProfit: at('0.99') }));
        if (n === 25) out.push(open('long', 15_000, 5));
        return out.length === 0 ? EMPTY : of(...out);
      }),
    );
  },
});

describe('attribution of fills and trades', () => {
  it('names the origin of every fill and trade, and records the kill switch with its figures', async () => {
    const file = writeCandles(dir, 'btc.csv', candles);
    const { result } = await runBacktest({
      markets: [{ asset: 'BTC', file }],
      strategies: [{ strategy: script, params: {}, assets: ['BTC'], source: 'test' }],
      balance: new Dec(100_000),
      risk: { strategies: { script: { allowScalping: true } }, killSwitch: { share: '0.9' } },
      keepPrices: false,
    });
    const report = buildReportJson(result);
    const kinds = report.fills.map((f) => f.origin?.kind);
    expect(kinds).not.toContain(undefined);
    expect(new Set(kinds)).toEqual(new Set(['strategy', 'stop_loss', 'take_profit', 'kill_switch']));
    // Strategy fills and protective fills carry the intent behind them; the kill switch the guard's.
    for (const f of report.fills) expect(f.origin!.intentId, `${f.origin!.kind} fill at ${f.time}`).not.toBeNull();
    expect(report.fills.filter((f) => f.origin!.kind === 'kill_switch').every((f) => f.origin!.strategy === 'risk-guard')).toBe(true);
    expect(report.fills.filter((f) => f.origin!.kind === 'stop_loss').every((f) => f.trigger !== null)).toBe(true);

    // Every closed trade says why it ended.
    const closed = report.trades.filter((t) => t.closedAt !== null);
    expect(closed.map((t) => t.closeReason).sort()).toEqual(['kill_switch', 'stop_loss', 'strategy', 'take_profit']);
    expect(closed.every((t) => t.closeOrigin !== null)).toBe(true);
    // The strategy's own why, where its intent made the fill; not the entry's note on a stop-out.
    const byReason = new Map(closed.map((t) => [t.closeReason, t]));
    expect(byReason.get('strategy')!.closeOrigin!.note).toBe('the script says close');
    expect(byReason.get('stop_loss')!.closeOrigin!.note).toBeNull();
    expect(byReason.get('kill_switch')!.closeOrigin!.note).toMatch(/^kill switch: /);
    expect(report.fills.find((f) => f.origin!.kind === 'strategy')!.origin!.note).toBe('first long');
    const csv = tradesCsv(result).split('\r\n');
    expect(csv[0]!.split(',').at(-1)).toBe('closeNote');
    expect(csv.find((line) => line.includes(',strategy,strategy,'))!.split(',').at(-1)).toBe('the script says close');
    expect(renderReportHtml(result)).toContain('<td class="l origin">strategy: the script says close</td>');

    // Funding settled at 08:00 on the open long, named as such.
    expect(report.funding.length).toBeGreaterThan(0);
    expect(report.funding.every((f) => f.origin.kind === 'funding')).toBe(true);

    // The kill switch is a decision with the figures that tripped it.
    expect(report.guardActions).toHaveLength(1);
    const a = report.guardActions[0]!;
    expect(a).toMatchObject({ rule: 'kill_switch', code: 'kill_switch_floor', floorRule: 'daily', floor: '95000' });
    expect(Number(a.equity)).toBeLessThanOrEqual(Number(a.threshold));
    expect(a.threshold).toBe('99500');
    expect(report.fills.find((f) => f.origin!.kind === 'kill_switch')!.origin!.intentId).toBe(a.intentId);

    // One stop-out, and it gapped: the index stepped from 103.8 to 103.4 across its trigger (0.99 × 104.6).
    expect(report.summary.stops.stopOuts).toBe(1);
    expect(report.summary.stops.gaps).toBe(1);
    const worst = report.summary.stops.worstSlippage!;
    expect(worst.trigger).toBe('103.554');
    // Beyond the trigger by the gap (0.154) and the spread on top of it.
    expect(Number(worst.slippage)).toBeGreaterThan(0.15);
  });
});

describe('attributedEvent', () => {
  it('keeps what attributing a fill reads, and not the event or its order view', () => {
    const order = { id: 'o-1', type: 'stop', triggerPrice: new Dec('103.554'), amount: new Dec(5), leverage: new Dec(2) } as unknown as Order;
    const event = {
      idx: 'p-1', eventName: 'closePosition', closeReason: null, market: 'm-1', direction: 'long', trader: 'a-1',
      timestamp: new Date(START), exchangedBase: new Dec('0.1'), exchangedQuote: new Dec('10.3'),
      size: new Dec(0), notional: new Dec(0), margin: new Dec(0), pnl: new Dec('-0.2'), order,
    } as unknown as PositionEvent;
    const kept = attributedEvent(event);
    expect(Object.keys(kept).sort()).toEqual(
      ['closeReason', 'direction', 'eventName', 'exchangedBase', 'exchangedQuote', 'idx', 'market', 'order', 'timestamp', 'trader'],
    );
    for (const key of Object.keys(kept) as (keyof typeof kept)[]) if (key !== 'order') expect(kept[key], key).toBe(event[key]);
    expect(kept.order).toEqual({ id: 'o-1', type: 'stop', triggerPrice: order.triggerPrice });
    expect(kept.order).not.toBe(order);
    expect(attributedEvent({ ...event, order: null }).order).toBeNull();
  });
});
