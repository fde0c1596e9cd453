/**
 * JSON that keeps Decimals and Dates: a Decimal is written `{"$dec":"1.5"}` and a Date
 * `{"$date":"…ISO…"}`, and both come back as what they were. Money never passes through a JS number.
 */
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { roundFp9 } from '../core/fp9.js';

export function encodeJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (Decimal.isDecimal(original)) return { $dec: (original as Decimal).toFixed() };
    if (original instanceof Date) return { $date: original.toISOString() };
    if (typeof original === 'bigint') return { $big: original.toString() };
    return v;
  });
}

export function decodeJson<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1) {
        if (typeof o['$dec'] === 'string') return new Dec(o['$dec']);
        if (typeof o['$date'] === 'string') return new Date(o['$date']);
        if (typeof o['$big'] === 'string') return BigInt(o['$big']);
      }
    }
    return v;
  }) as T;
}

/**
 * Money and sizes as TEXT: a plain decimal string with at most 9 places (fp9 precision), rounded
 * half-even when a computed value carries more. Never REAL.
 */
export function moneyText(value: Decimal, field: string): string {
  return roundFp9(value, 'half-even', field).toFixed();
}

export function moneyOrNull(value: Decimal | null | undefined, field: string): string | null {
  return value === null || value === undefined ? null : moneyText(value, field);
}

export function parseMoney(text: string): Decimal {
  return new Dec(text);
}
