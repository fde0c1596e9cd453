/**
 * Position sizing by risk: turn "lose at most this share of equity if the stop is hit" into the quote
 * amount the API reserves. With leverage L and fee rate f the API turns an amount A into notional
 * N = A / (1/L + f). Hitting the stop costs, per unit of notional,
 *   |entry − stop| / entry      (the price move)
 * + f × stop / entry            (the closing fee, charged on the exit value)
 * + f                           (the opening fee, already paid: it is part of the loss too)
 * so N = share × equity / that, and A = N × (1/L + f), rounded DOWN to 9 decimals so the loss never
 * exceeds the budget. Spread, price impact and a stop that gaps past its trigger are not modelled:
 * the result is a budget, not a guarantee (leave room in `share`).
 *
 * Each figure is one quotient of exact products (A = share·equity·(1 + fL)·entry / (L·(|entry − stop|
 * + f·stop + f·entry)), and so on), rounded once and in the direction that keeps it within the
 * budget: the amount and the notional down, the loss up. Worked as a chain of Decimal operations,
 * each rounded half-even at 60 digits, a loss exactly equal to the budget came out 2·10^-58 over it
 * (and an amount just under a 9-decimal step could come out a step over).
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { PropbotError } from '../core/errors.js';
import type { Direction } from '../api/types.js';

/** An intent a strategy asked for can not be built as asked. */
export class IntentError extends PropbotError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('intent_invalid', `${field}: ${message}`);
    this.field = field;
  }
}

export interface RiskSizingInput {
  direction: Direction;
  /** Current equity of the account. */
  equity: Decimal;
  /** Share of equity to lose at the stop (0.01 = 1%). */
  share: Decimal;
  /** Expected entry price. */
  entry: Decimal;
  /** Stop-loss trigger. */
  stop: Decimal;
  leverage: Decimal;
  /** Market fee rate per side (`settings.fee`). */
  feeRate: Decimal;
}

export interface RiskSizing {
  /** Quote amount to reserve, rounded down to 9 decimals. */
  amount: Decimal;
  /** Notional that amount buys. */
  notional: Decimal;
  /** Loss at the stop for that notional, fees included. */
  lossAtStop: Decimal;
}

export function sizeByRisk(input: RiskSizingInput): RiskSizing {
  const { direction, equity, share, entry, stop, leverage, feeRate } = input;
  if (!equity.gt(0)) throw new IntentError('size.risk', `needs positive equity, the account has ${equity.toString()}`);
  if (!share.gt(0) || share.gt(1)) throw new IntentError('size.risk', `share of equity must be in (0, 1], got ${share.toString()}`);
  if (!entry.gt(0)) throw new IntentError('entry', `entry price must be positive, got ${entry.toString()}`);
  if (!stop.gt(0)) throw new IntentError('stopLoss', `must be positive, got ${stop.toString()}`);
  if (!leverage.gt(0)) throw new IntentError('leverage', `must be positive, got ${leverage.toString()}`);
  if (feeRate.lt(0)) throw new IntentError('fee', `fee rate must not be negative, got ${feeRate.toString()}`);
  if (direction === 'long' ? !stop.lt(entry) : !stop.gt(entry)) {
    throw new IntentError(
      'stopLoss',
      `a ${direction} stop must be ${direction === 'long' ? 'below' : 'above'} the entry ${entry.toString()}, got ${stop.toString()}`,
    );
  }
  // Loss per notional is lossTimesEntry / entry; the reserve per notional, reserveTimesL / L.
  const lossTimesEntry = exact(entry).minus(stop).abs().plus(exact(feeRate).times(stop)).plus(exact(feeRate).times(entry));
  const reserveTimesL = exact(feeRate).times(leverage).plus(1);
  const budget = exact(equity).times(share);
  const amount = quotient(DOWN, budget.times(reserveTimesL).times(entry), lossTimesEntry.times(leverage)).toDecimalPlaces(9, Dec.ROUND_DOWN);
  const notional = quotient(DOWN, exact(amount).times(leverage), reserveTimesL);
  const lossAtStop = quotient(UP, exact(amount).times(leverage).times(lossTimesEntry), reserveTimesL.times(entry));
  return { amount, notional, lossAtStop };
}

/**
 * Wide enough that every product and sum above is exact: for inputs of 60 digits each, the amount's
 * numerator has at most ~300. Decimal's cost follows the digits a value has, not this bound.
 */
const EXACT = Dec.clone({ precision: 400 });
const DOWN = Dec.clone({ rounding: Dec.ROUND_FLOOR });
const UP = Dec.clone({ rounding: Dec.ROUND_CEIL });

function exact(value: Decimal): Decimal {
  return new EXACT(value);
}

/** `a / b` rounded once to Dec's 60 digits toward `side` (DOWN or UP), as a Dec. */
function quotient(side: typeof DOWN, a: Decimal, b: Decimal): Decimal {
  return new Dec(new side(a).div(b));
}
