/**
 * SMA crossover: long when the fast simple moving average of closes crosses above the slow one, short
 * (or flat, with `allowShort: false`) when it crosses below. Always in the market once the averages
 * are ready; each entry carries a protective stop `stopPercent` away.
 *
 * Copy this file to start your own strategy: it shows parameters with defaults, candles, an indicator
 * from trading-signals, reading the account's positions, and emitting several intents for one candle.
 *
 *   propbot backtest --strategy strategies/sma-cross.ts --data BTC=coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv --param period=1h --param fast=10 --param slow=30
 */
import { Dec, defineStrategy, SMA, z, zDecimal, type Candle, type OrderIntent, type StrategyContext } from 'propbot';

// Each parameter's .describe() is what `propbot strategies` shows beside its default.
const params = z
  .object({
    asset: z.string().min(1).default('BTC').describe('Base asset of the market to trade.'),
    period: z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1D']).default('15m').describe('Candle period the averages are computed on.'),
    fast: z.number().int().min(1).default(10).describe('Fast average length, in candles.'),
    slow: z.number().int().min(2).default(30).describe('Slow average length, in candles.'),
    amount: zDecimal({ positive: true }).prefault('1000').describe('Quote amount reserved per entry (margin + fee).'),
    leverage: zDecimal({ min: 1 }).prefault('2').describe('Leverage of each entry.'),
    stopPercent: zDecimal({ positive: true, max: '0.5' }).prefault('0.02').describe('Protective stop distance from the entry price (0.02 = 2%).'),
    allowShort: z.boolean().default(true).describe('Go short on a downward cross; false: only go flat.'),
  })
  .refine((p) => p.fast < p.slow, { message: 'fast must be shorter than slow', path: ['fast'] });

export default defineStrategy({
  name: 'sma-cross',
  version: '1.0.0',
  description: 'Simple moving average crossover, always in the market.',
  params,
  assets: (p) => [p.asset],
  // The slow average, plus one candle to see the first cross.
  warmup: (p) => ({ candles: p.slow + 1, period: p.period }),
  setup(ctx, p) {
    const fast = new SMA(p.fast);
    const slow = new SMA(p.slow);
    let previous: 'above' | 'below' | undefined;

    // The callback runs on every completed candle and returns the intents to emit (none, one or several).
    return ctx.onCandle(p.asset, p.period, (candle: Candle) => {
      const close = candle.close.toNumber();
      const f = fast.add(close);
      const s = slow.add(close);
      if (f === null || s === null || !slow.isStable) return;
      const now = f > s ? 'above' : f < s ? 'below' : previous;
      const crossed = previous !== undefined && now !== previous;
      previous = now;
      if (!crossed) return;
      ctx.log.info({ fast: f, slow: s, close: candle.close.toString() }, `fast average crossed ${now} slow`);
      return now === 'above' ? turn(ctx, 'long', p) : turn(ctx, 'short', p);
    });
  },
});

/** Close the opposite side if held, then open the new side unless already held (or shorts are off). */
function turn(ctx: StrategyContext, side: 'long' | 'short', p: z.output<typeof params>): OrderIntent[] {
  const held = ctx.latest.positions(p.asset)?.data ?? [];
  const opposite = side === 'long' ? 'short' : 'long';
  const out: OrderIntent[] = [];
  if (held.some((pos) => pos.direction === opposite)) out.push(ctx.intents.close({ direction: opposite, note: 'cross' }));
  if (side === 'short' && !p.allowShort) return out;
  if (held.some((pos) => pos.direction === side)) return out;
  const price = ctx.latest.market(p.asset)?.price;
  if (!price) return out;
  // Rounded away from the market to the 9 decimals the API carries.
  const stop =
    side === 'long'
      ? price.times(p.stopPercent.neg().plus(1)).toDecimalPlaces(9, Dec.ROUND_FLOOR)
      : price.times(p.stopPercent.plus(1)).toDecimalPlaces(9, Dec.ROUND_CEIL);
  out.push(
    ctx.intents.open(side, {
      size: { quote: p.amount },
      leverage: p.leverage,
      stopLoss: stop,
      note: `sma ${side}`,
    }),
  );
  return out;
}
