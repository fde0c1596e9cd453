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
 */
import type { Decimal } from 'decimal.js';
import { Dec, ONE } from '../core/decimal.js';
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
  const lossPerNotional = entry.minus(stop).abs().div(entry).plus(feeRate.times(stop).div(entry)).plus(feeRate);
  const budget = equity.times(share);
  const reservePerNotional = ONE.div(leverage).plus(feeRate);
  const amount = budget.div(lossPerNotional).times(reservePerNotional).toDecimalPlaces(9, Dec.ROUND_DOWN);
  const notional = amount.div(reservePerNotional);
  return { amount, notional, lossAtStop: notional.times(lossPerNotional) };
}
