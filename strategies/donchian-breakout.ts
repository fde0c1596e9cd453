/**
 * Donchian channel breakout (the turtle idea): go long when a candle closes above the highest high of
 * the previous `channel` candles, short when it closes below the lowest low. The stop sits
 * `atrMultiplier` × ATR away from the entry, and the size is chosen so that hitting the stop costs
 * `risk` of equity (fees included). A position is closed when price breaks the shorter `exitChannel`
 * the other way.
 *
 *   propbot backtest --strategy strategies/donchian-breakout.ts --data BTC=data/btc-1m.csv --param period=1h
 */
import { ATR, candleNumbers, Dec, defineStrategy, DonchianChannels, priceFrom, z, zDecimal, type Candle, type OrderIntent } from 'propbot';

// Each parameter's .describe() is what `propbot strategies` shows beside its default.
const params = z.object({
  asset: z.string().min(1).default('BTC').describe('Base asset of the market to trade.'),
  period: z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1D']).default('1h').describe('Candle period the channels are computed on.'),
  channel: z.number().int().min(2).default(20).describe('Entry channel length, in candles.'),
  exitChannel: z.number().int().min(2).default(10).describe('Exit channel length, in candles.'),
  atrPeriod: z.number().int().min(1).default(14).describe('ATR length, in candles.'),
  atrMultiplier: zDecimal({ positive: true }).prefault('2').describe('Stop distance in ATRs.'),
  risk: zDecimal({ positive: true, max: '0.05' }).prefault('0.01').describe('Share of equity lost if the stop is hit (0.01 = 1%).'),
  leverage: zDecimal({ min: 1 }).prefault('3').describe('Leverage of each entry.'),
  maxReserve: zDecimal({ positive: true, max: '1' }).prefault('0.5').describe("Cap of one entry's reserve as a share of equity, for stops so tight the risk size would not fit."),
  allowShort: z.boolean().default(true).describe('Also go short on a downward breakout; false: long only.'),
});

export default defineStrategy({
  name: 'donchian-breakout',
  version: '1.0.0',
  description: 'Donchian channel breakout with ATR stops, sized by risk.',
  params,
  assets: (p) => [p.asset],
  warmup: (p) => ({ candles: Math.max(p.channel, p.exitChannel, p.atrPeriod) + 1, period: p.period }),
  setup(ctx, p) {
    const entry = new DonchianChannels(p.channel);
    const exit = new DonchianChannels(p.exitChannel);
    const atr = new ATR(p.atrPeriod);

    return ctx.onCandle(p.asset, p.period, (candle: Candle): OrderIntent[] => {
      // Compare with the channels of the candles BEFORE this one, then add it.
      const upper = entry.isStable ? entry.getResult()?.upper : undefined;
      const lower = entry.isStable ? entry.getResult()?.lower : undefined;
      const exitBand = exit.isStable ? exit.getResult() : null;
      const n = candleNumbers(candle);
      entry.add(n);
      exit.add(n);
      const range = atr.add(n);
      if (upper === undefined || lower === undefined || range === null || !atr.isStable) return [];

      const held = ctx.latest.positions(p.asset)?.data ?? [];
      const long = held.find((x) => x.direction === 'long');
      const short = held.find((x) => x.direction === 'short');
      const out: OrderIntent[] = [];
      if (long && exitBand && n.close < exitBand.lower) out.push(ctx.intents.close({ direction: 'long', note: 'exit channel' }));
      if (short && exitBand && n.close > exitBand.upper) out.push(ctx.intents.close({ direction: 'short', note: 'exit channel' }));
      if (out.length > 0 || long || short) return out;

      const price = ctx.latest.market(p.asset)?.price ?? candle.close;
      const equity = ctx.latest.risk()?.data.currentEquity;
      const distance = priceFrom(range).times(p.atrMultiplier);
      if (!equity || !distance.gt(0) || !distance.lt(price)) return [];
      const size = { risk: p.risk, maxAmount: equity.times(p.maxReserve).toDecimalPlaces(9) };
      if (n.close > upper) {
        return [ctx.intents.openLong({ size, leverage: p.leverage, stopLoss: price.minus(distance).toDecimalPlaces(9, Dec.ROUND_FLOOR), note: 'breakout up' })];
      }
      if (p.allowShort && n.close < lower) {
        return [ctx.intents.openShort({ size, leverage: p.leverage, stopLoss: price.plus(distance).toDecimalPlaces(9, Dec.ROUND_CEIL), note: 'breakout down' })];
      }
      return [];
    });
  },
});
