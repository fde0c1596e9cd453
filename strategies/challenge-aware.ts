/**
 * A trend follower that knows it is taking a challenge. The account fails the moment equity falls
 * below the highest of its drawdown floors:
 *   daily     dayStartEquity × (1 − maxDailyDrawdown)
 *   total     initialBalance × (1 − maxTotalDrawdown)
 *   trailing  maxEquity × (1 − maxTrailingDrawdown)      (when the account has that rule)
 * so the money it may still lose is the HEADROOM = equity − max(floors). Each trade risks a share of
 * that headroom (not of equity): after a losing day the trades shrink, near the floor it stops
 * opening, and closer still it flattens everything. Entries follow an EMA crossover with ATR stops.
 *
 * The rule percentages are parameters with the platform's defaults (5% daily, 10% total, no trailing);
 * set them to your account's rules. The initial balance defaults to the risk status's payout baseline,
 * which equals the initial account size until a first payout.
 *
 *   propbot run --config config/paper.yaml     # with strategies: [{ use: strategies/challenge-aware.ts }]
 */
import {
  ATR,
  candleNumbers,
  Dec,
  defineStrategy,
  EMA,
  priceFrom,
  rx,
  z,
  zDecimal,
  type Candle,
  type OrderIntent,
  type RiskStatus,
} from 'propbot';

// Each parameter's .describe() is what `propbot strategies` shows beside its default.
const params = z.object({
  asset: z.string().min(1).default('BTC').describe('Base asset of the market to trade.'),
  period: z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1D']).default('15m').describe('Candle period the averages and the ATR are computed on.'),
  fast: z.number().int().min(1).default(12).describe('Fast EMA length, in candles.'),
  slow: z.number().int().min(2).default(26).describe('Slow EMA length, in candles.'),
  atrPeriod: z.number().int().min(1).default(14).describe('ATR length, in candles.'),
  atrMultiplier: zDecimal({ positive: true }).prefault('2').describe('Stop distance in ATRs.'),
  maxDailyDrawdownPercent: zDecimal({ positive: true, max: '100' }).prefault('5').describe("Daily drawdown limit, percent of the day's starting equity."),
  maxTotalDrawdownPercent: zDecimal({ positive: true, max: '100' }).prefault('10').describe('Total drawdown limit, percent of the initial balance.'),
  maxTrailingDrawdownPercent: zDecimal({ positive: true, max: '100' }).optional().describe('Trailing drawdown limit, percent of the highest equity; omit when the account has none.'),
  initialBalance: zDecimal({ positive: true }).optional().describe("Initial account size; default: the risk status's payoutBaselineBalance."),
  headroomShare: zDecimal({ positive: true, max: '1' }).prefault('0.25').describe('Share of the headroom one trade may lose at its stop.'),
  minHeadroom: zDecimal({ min: 0, max: '1' }).prefault('0.01').describe('Open nothing while the headroom is below this share of the initial balance.'),
  flattenHeadroom: zDecimal({ min: 0, max: '1' }).prefault('0.003').describe('Close everything once the headroom is below this share of the initial balance.'),
  leverage: zDecimal({ min: 1 }).prefault('3').describe('Leverage of each entry.'),
  maxReserve: zDecimal({ positive: true, max: '1' }).prefault('0.5').describe("Cap of one entry's reserve as a share of equity."),
});

export type ChallengeAwareParams = z.output<typeof params>;

export interface DrawdownFloors {
  daily: Dec;
  total: Dec;
  trailing: Dec | null;
  /** The binding floor: the highest of the three. */
  floor: Dec;
  /** equity − floor (negative once a rule is broken). */
  headroom: Dec;
}

/** The account's drawdown floors and the headroom above the binding one. */
export function drawdownFloors(
  risk: RiskStatus,
  rules: Pick<ChallengeAwareParams, 'maxDailyDrawdownPercent' | 'maxTotalDrawdownPercent' | 'maxTrailingDrawdownPercent' | 'initialBalance'>,
): DrawdownFloors {
  const hundred = new Dec(100);
  const initial = rules.initialBalance ?? risk.payoutBaselineBalance;
  const daily = risk.dayStartEquity.times(hundred.minus(rules.maxDailyDrawdownPercent)).div(hundred);
  const total = initial.times(hundred.minus(rules.maxTotalDrawdownPercent)).div(hundred);
  const trailing =
    rules.maxTrailingDrawdownPercent !== undefined && risk.maxEquity !== null
      ? risk.maxEquity.times(hundred.minus(rules.maxTrailingDrawdownPercent)).div(hundred)
      : null;
  let floor = Dec.max(daily, total);
  if (trailing !== null) floor = Dec.max(floor, trailing);
  return { daily, total, trailing, floor, headroom: risk.currentEquity.minus(floor) };
}

export default defineStrategy({
  name: 'challenge-aware',
  version: '1.0.0',
  description: 'EMA trend follower sized by the drawdown headroom left in the challenge rules.',
  params,
  assets: (p) => [p.asset],
  warmup: (p) => ({ candles: Math.max(p.slow, p.atrPeriod) + 1, period: p.period }),
  setup(ctx, p) {
    if (p.fast >= p.slow) throw new Error(`fast (${p.fast}) must be shorter than slow (${p.slow})`);
    const fast = new EMA(p.fast);
    const slow = new EMA(p.slow);
    const atr = new ATR(p.atrPeriod);
    let previous: 'above' | 'below' | undefined;

    return ctx.candles(p.asset, p.period).pipe(
      rx.mergeMap((candle: Candle): OrderIntent[] => {
        const n = candleNumbers(candle);
        const f = fast.add(n.close);
        const s = slow.add(n.close);
        const range = atr.add(n);
        const risk = ctx.latest.risk()?.data;
        if (f === null || s === null || range === null || !slow.isStable || !atr.isStable || !risk) return [];

        const initial = p.initialBalance ?? risk.payoutBaselineBalance;
        const { headroom, floor } = drawdownFloors(risk, p);
        const held = ctx.latest.positions(p.asset)?.data ?? [];
        if (held.length > 0 && headroom.lt(initial.times(p.flattenHeadroom))) {
          ctx.log.warn({ headroom: headroom.toString(), floor: floor.toString() }, 'headroom nearly gone: flattening');
          previous = undefined;
          return [ctx.intents.closeAll({ scope: 'account', note: `headroom ${headroom.toFixed(2)}` })];
        }

        const now = f > s ? 'above' : f < s ? 'below' : previous;
        const crossed = previous !== undefined && now !== previous;
        previous = now;
        if (!crossed) return [];

        const side = now === 'above' ? 'long' : 'short';
        const opposite = side === 'long' ? 'short' : 'long';
        const out: OrderIntent[] = [];
        if (held.some((x) => x.direction === opposite)) out.push(ctx.intents.close({ direction: opposite, note: 'trend turned' }));
        if (held.some((x) => x.direction === side)) return out;
        if (headroom.lt(initial.times(p.minHeadroom))) {
          ctx.log.info({ headroom: headroom.toString() }, 'headroom below the minimum: not opening');
          return out;
        }

        const equity = risk.currentEquity;
        const price = ctx.latest.market(p.asset)?.price ?? candle.close;
        const distance = priceFrom(range).times(p.atrMultiplier);
        if (!distance.gt(0) || !distance.lt(price) || !equity.gt(0)) return out;
        // Lose at most headroomShare of the headroom: as a share of equity, what the builder sizes by.
        const share = Dec.min(headroom.times(p.headroomShare).div(equity), new Dec(1)).toDecimalPlaces(9, Dec.ROUND_DOWN);
        if (!share.gt(0)) return out;
        const stopLoss =
          side === 'long'
            ? price.minus(distance).toDecimalPlaces(9, Dec.ROUND_FLOOR)
            : price.plus(distance).toDecimalPlaces(9, Dec.ROUND_CEIL);
        out.push(
          ctx.intents.open(side, {
            size: { risk: share, maxAmount: equity.times(p.maxReserve).toDecimalPlaces(9, Dec.ROUND_DOWN) },
            leverage: p.leverage,
            stopLoss,
            note: `headroom ${headroom.toFixed(2)} above floor ${floor.toFixed(2)}`,
          }),
        );
        return out;
      }),
    );
  },
});
