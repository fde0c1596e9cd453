/**
 * A `BacktestResult` as text and back, so a run made on another thread or machine (walk-forward's
 * out-of-sample run on a `propbot worker`) reports exactly as if made here. Its money and prices are
 * Decimals, which JSON would turn into plain strings with no way back; each is written as
 * `{"$dec":"123.45"}` and read back as a Decimal with the same digits, so every figure and the HTML
 * report built from the decoded result are the ones the original gives.
 */
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { Fp9EquitySample, Fp9EquitySeries } from './equity-sample.js';
import type { BacktestResult } from './types.js';

const TAG = '$dec';

export function encodeResult(result: BacktestResult): string {
  return JSON.stringify(tagDecimals(result));
}

export function decodeResult(text: string): BacktestResult {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === TAG) return new Dec((value as Record<string, string>)[TAG]!);
    }
    return value;
  }) as BacktestResult;
}

function tagDecimals(value: unknown): unknown {
  // Decimal.isDecimal also knows the clones (`Dec`) the engine and the report build.
  if (Decimal.isDecimal(value)) return { [TAG]: signedZero(value as Decimal) };
  if (Array.isArray(value)) return value.map(tagDecimals);
  // An fp9 equity sample builds its Decimal when read (a getter, not an own field), and a backtest's
  // series of them is columns, not an array: each encoded as the plain samples it stands for.
  if (value instanceof Fp9EquitySample || value instanceof Fp9EquitySeries) return tagDecimals(value.toJSON());
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = tagDecimals(v);
    return out;
  }
  return value;
}

/** toString() drops the sign of −0, which a pnl can be; the text keeps it. */
function signedZero(d: Decimal): string {
  return d.isZero() && d.isNegative() ? '-0' : d.toString();
}
