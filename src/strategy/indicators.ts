/**
 * Glue between candles and the trading-signals library (the indicators themselves are the library's,
 * never hand-written copies). Indicators compute in JS numbers: fine for signals, which compare and
 * cross, but a price that goes into an order (a stop from an ATR, a band) comes back through
 * `priceFrom`, which rounds it to 9 decimals as a Decimal.
 */
import type { Decimal } from 'decimal.js';
import { Observable, type OperatorFunction } from 'rxjs';
import { Dec } from '../core/decimal.js';
import type { Candle } from '../feed/types.js';

export * as ta from 'trading-signals';
export { SMA, EMA, RSI, ATR, BollingerBands, DonchianChannels, MACD } from 'trading-signals';

export interface HighLowCloseNumbers {
  high: number;
  low: number;
  close: number;
}

/** A candle as the library's `{ open, high, low, close }` numbers. */
export function candleNumbers(candle: Candle): HighLowCloseNumbers & { open: number } {
  return {
    open: candle.open.toNumber(),
    high: candle.high.toNumber(),
    low: candle.low.toNumber(),
    close: candle.close.toNumber(),
  };
}

export function closeNumber(candle: Candle): number {
  return candle.close.toNumber();
}

/** An indicator value (a JS number) as a price: a Decimal rounded to 9 decimals (`half-up` unless told). */
export function priceFrom(value: number, rounding: Decimal.Rounding = Dec.ROUND_HALF_UP): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`priceFrom: expected a finite number, got ${value}`);
  return new Dec(String(value)).toDecimalPlaces(9, rounding);
}

/** What the operator needs of an indicator; every trading-signals indicator has it. */
export interface IndicatorLike<Input, Result> {
  add(input: Input): Result | null;
  readonly isStable: boolean;
}

export interface IndicatorValue<Result> {
  readonly candle: Candle;
  readonly value: Result;
}

/**
 * Feed each candle to `indicator` (converted by `input`) and emit `{ candle, value }` once the
 * indicator is stable. The indicator instance belongs to one subscription: create it in a factory.
 */
export function withIndicator<Input, Result>(
  create: () => IndicatorLike<Input, Result>,
  input: (candle: Candle) => Input,
): OperatorFunction<Candle, IndicatorValue<Result>> {
  return (source) =>
    new Observable<IndicatorValue<Result>>((subscriber) => {
      const indicator = create();
      return source.subscribe({
        next(candle) {
          const value = indicator.add(input(candle));
          if (value !== null && indicator.isStable) subscriber.next({ candle, value });
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => subscriber.complete(),
      });
    });
}
