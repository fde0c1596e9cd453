/**
 * report.json's equity array, a sample a minute of the run, written as bytes. Its text is what
 * `JSON.stringify(…, null, 2)` gives for `{ time, equity }` objects two levels deep, byte for byte;
 * building that text (a template string a sample, the equity's decimal text, the rope flattened at
 * the write) cost ~1 µs a sample warm, half of a report's time on a month of 1-minute data. Here a sample's
 * digits go straight into a reused buffer: a time is a whole number of ms and an fp9 equity below
 * 2^53 writes from its double; anything else (a fraction of a ms, a wider equity, a plain sample's
 * Decimal) is written from its text, as before.
 */
import { fp9Text } from '../core/fp9.js';
import { equityText, Fp9EquitySeries } from './equity-sample.js';
import type { EquitySeries } from './types.js';

const HEAD = Buffer.from('    {\n      "time": ', 'latin1');
const MIDDLE = Buffer.from(',\n      "equity": "', 'latin1');
const TAIL = Buffer.from('"\n    }', 'latin1');
const SEPARATOR = Buffer.from(',\n', 'latin1');
const NULL = Buffer.from('null', 'latin1');
const ZERO = 0x30;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);

/** A growable byte buffer the caller empties (`reset`) after each write of `bytes()`. */
export class JsonBytes {
  #buf: Buffer;
  #pos = 0;

  constructor(size: number) {
    this.#buf = Buffer.allocUnsafe(size);
  }

  /** The bytes written since the last `reset`; valid until the next write. */
  bytes(): Buffer {
    return this.#buf.subarray(0, this.#pos);
  }

  reset(): void {
    this.#pos = 0;
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.#buf.length, this.#pos + n));
    this.#buf.copy(bigger, 0, 0, this.#pos);
    this.#buf = bigger;
  }

  raw(bytes: Buffer): void {
    this.#room(bytes.length);
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.length;
  }

  /** A text of ASCII characters (digits, signs, points, `NaN`, `Infinity`). */
  ascii(text: string): void {
    this.#room(text.length);
    this.#pos += this.#buf.write(text, this.#pos, 'latin1');
  }

  /** The decimal digits of a whole number from 0 to 2^53 − 1. */
  digits(value: number): void {
    let n = 1;
    for (let p = 10; p <= value; p *= 10) n += 1;
    this.#room(n);
    const buf = this.#buf;
    let i = this.#pos + n;
    let x = value;
    do {
      const q = Math.floor(x / 10);
      buf[--i] = ZERO + (x - q * 10);
      x = q;
    } while (x > 0);
    this.#pos += n;
  }

  /** `fp9Text` of an fp9 integer held exactly by a double (|raw| < 2^53). */
  fp9(raw: number): void {
    if (raw < 0) {
      this.ascii('-');
      raw = -raw;
    }
    // As fp9Text: the quotient is never rounded up to a whole number it is below.
    const int = Math.floor(raw / 1e9);
    let frac = raw - int * 1e9;
    this.digits(int);
    if (frac === 0) return;
    this.#room(10);
    const buf = this.#buf;
    buf[this.#pos] = 0x2e;
    let last = this.#pos + 1;
    for (let i = this.#pos + 9; i > this.#pos; i -= 1) {
      const q = Math.floor(frac / 10);
      const d = frac - q * 10;
      buf[i] = ZERO + d;
      if (d !== 0 && last === this.#pos + 1) last = i;
      frac = q;
    }
    this.#pos = last + 1;
  }
}

/**
 * Samples `from` to `to` of `equity` as report.json's array entries, separated by `,\n`, into `out`.
 * The array's brackets and what follows the last entry are the caller's.
 */
export function writeEquityEntries(out: JsonBytes, equity: EquitySeries, from: number, to: number): void {
  const columns = equity instanceof Fp9EquitySeries ? equity : undefined;
  for (let j = from; j < to; j += 1) {
    if (j > from) out.raw(SEPARATOR);
    const sample = columns ? undefined : equity.at(j)!;
    const time = sample ? sample.time : columns!.timeAt(j);
    out.raw(HEAD);
    if (time >= 0 && time <= MAX_SAFE && Number.isInteger(time)) out.digits(time);
    else if (Number.isFinite(time)) out.ascii(String(time));
    else out.raw(NULL);
    out.raw(MIDDLE);
    if (sample) out.ascii(equityText(sample));
    else {
      const raw = columns!.rawAt(j);
      if (raw <= MAX_SAFE_BIG && raw >= -MAX_SAFE_BIG) out.fp9(Number(raw));
      else out.ascii(fp9Text(raw));
    }
    out.raw(TAIL);
  }
}
