/**
 * Mean reversion with Bollinger bands and RSI: buy when a candle closes below the lower band while
 * RSI is oversold, sell short when it closes above the upper band while RSI is overbought, and take
 * the profit back at the middle band. Entries carry a stop `stopPercent` beyond the entry and a
 * take-profit at the middle band; the position is also closed at market once price gets there.
 *
 *   propbot backtest --strategy strategies/mean-reversion.ts --data ETH=data/eth-1m.csv --param asset=ETH
 */
import { BollingerBands, Dec, defineStrategy, priceFrom, RSI, z, zDecimal, type Candle, type OrderIntent } from 'propbot';

// Each parameter's .describe() is what `propbot strategies` shows beside its default.
const params = z.object({
  asset: z.string().min(1).default('BTC').describe('Base asset of the market to trade.'),
  period: z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1D']).default('15m').describe('Candle period the bands and the RSI are computed on.'),
  bands: z.number().int().min(2).default(20).describe('Bollinger length, in candles.'),
  deviations: z.number().positive().default(2).describe('Band width in standard deviations.'),
  rsiPeriod: z.number().int().min(2).default(14).describe('RSI length, in candles.'),
  oversold: z.number().min(0).max(100).default(30).describe('A close under the lower band buys while the RSI is below this.'),
  overbought: z.number().min(0).max(100).default(70).describe('A close over the upper band sells short while the RSI is above this.'),
  amount: zDecimal({ positive: true }).prefault('1000').describe('Quote amount reserved per entry.'),
  leverage: zDecimal({ min: 1 }).prefault('2').describe('Leverage of each entry.'),
  stopPercent: zDecimal({ positive: true, max: '0.5' }).prefault('0.03').describe('Protective stop distance from the entry price (0.03 = 3%).'),
  allowShort: z.boolean().default(true).describe('Also go short at the upper band; false: long only.'),
});

export default defineStrategy({
  name: 'mean-reversion',
  version: '1.0.0',
  description: 'Bollinger band + RSI mean reversion, back to the middle band.',
  params,
  assets: (p) => [p.asset],
  warmup: (p) => ({ candles: Math.max(p.bands, p.rsiPeriod) + 1, period: p.period }),
  setup(ctx, p) {
    if (p.oversold >= p.overbought) throw new Error(`oversold (${p.oversold}) must be below overbought (${p.overbought})`);
    const bands = new BollingerBands(p.bands, p.deviations);
    const rsi = new RSI(p.rsiPeriod);

    return ctx.onCandle(p.asset, p.period, (candle: Candle): OrderIntent[] => {
      const close = candle.close.toNumber();
      const band = bands.add(close);
      const strength = rsi.add(close);
      if (band === null || strength === null || !bands.isStable || !rsi.isStable) return [];

      const held = ctx.latest.positions(p.asset)?.data ?? [];
      const long = held.some((x) => x.direction === 'long');
      const short = held.some((x) => x.direction === 'short');
      // Back at the mean: take the profit (or the small loss) at market.
      if (long && close >= band.middle) return [ctx.intents.close({ direction: 'long', note: 'middle band' })];
      if (short && close <= band.middle) return [ctx.intents.close({ direction: 'short', note: 'middle band' })];
      if (long || short) return [];

      const price = ctx.latest.market(p.asset)?.price ?? candle.close;
      const middle = priceFrom(band.middle);
      if (close < band.lower && strength < p.oversold && middle.gt(price)) {
        return [
          ctx.intents.openLong({
            size: { quote: p.amount },
            leverage: p.leverage,
            stopLoss: price.times(p.stopPercent.neg().plus(1)).toDecimalPlaces(9, Dec.ROUND_FLOOR),
            takeProfit: middle,
            note: `rsi ${strength.toFixed(1)} below lower band`,
          }),
        ];
      }
      if (p.allowShort && close > band.upper && strength > p.overbought && middle.lt(price)) {
        return [
          ctx.intents.openShort({
            size: { quote: p.amount },
            leverage: p.leverage,
            stopLoss: price.times(p.stopPercent.plus(1)).toDecimalPlaces(9, Dec.ROUND_CEIL),
            takeProfit: middle,
            note: `rsi ${strength.toFixed(1)} above upper band`,
          }),
        ];
      }
      return [];
    });
  },
});
