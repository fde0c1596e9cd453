import { Decimal } from 'decimal.js';

/**
 * The Decimal constructor every part of propbot uses. Precision is far above what fp9 money needs
 * (balances of 10^15 with 9 decimals are 24 digits) so that intermediate products and quotients are
 * never rounded before the one explicit rounding to fp9 at the edge.
 */
export const Dec = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 60,
});
export type Dec = Decimal;
export { Decimal };

export const ZERO = new Dec(0);
export const ONE = new Dec(1);

/** Decimal from a decimal string, a bigint or an existing Decimal. Numbers are refused: money is never a JS number. */
export function dec(value: Decimal.Value | bigint): Decimal {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`dec(): refusing the non-integer number ${value}; pass a decimal string`);
    }
    return new Dec(value);
  }
  if (typeof value === 'bigint') return new Dec(value.toString());
  return new Dec(value);
}

export function minDec(a: Decimal, b: Decimal): Decimal {
  return a.lte(b) ? a : b;
}

export function maxDec(a: Decimal, b: Decimal): Decimal {
  return a.gte(b) ? a : b;
}
