/**
 * Append-only columns of numbers in fixed-size typed-array chunks, for series kept once per minute
 * of a run (the report's equity samples) or nearly (the engine's runs of equal minutes): a plain array holds a pointer and a heap object (a bigint, a boxed
 * number, a sample) for every minute, 30 to 70 bytes where the column holds 4 or 8, and grows by
 * copying itself. A chunk is never copied or resized, so a long run's memory grows only by what it
 * keeps.
 */

import { objectArray } from './arrays.js';

/**
 * 256 values a chunk. A new chunk is a branch the compiled `push` takes once a chunk; at 8,192 a
 * chunk V8 first met it after compiling the replay's loop (into which `push` is inlined), found no
 * type feedback there and threw the loop's code away at minute 8,192 of every run. At 256 the branch
 * has been taken, and its feedback recorded, before the loop is compiled. The chunks' own cost stays
 * small: ~2 k typed arrays a column for a year of minutes.
 */
const CHUNK_BITS = 8;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

interface Chunk<T> {
  [index: number]: T;
}

class Column<T> {
  readonly #chunks: Chunk<T>[] = objectArray();
  readonly #make: (size: number) => Chunk<T>;
  #length = 0;

  constructor(make: (size: number) => Chunk<T>) {
    this.#make = make;
  }

  get length(): number {
    return this.#length;
  }

  push(value: T): void {
    const n = this.#length;
    if ((n & MASK) === 0) this.#chunks.push(this.#make(CHUNK));
    this.#chunks[n >>> CHUNK_BITS]![n & MASK] = value;
    this.#length = n + 1;
  }

  /** The value at `index` (0 ≤ index < length; not checked). */
  get(index: number): T {
    return this.#chunks[index >>> CHUNK_BITS]![index & MASK]!;
  }
}

/** Doubles: times in unix ms, any number a double holds exactly. */
export class Float64Column extends Column<number> {
  constructor() {
    super((size) => new Float64Array(size));
  }
}

/** Small whole numbers (−2^31 ≤ n < 2^31). */
export class Int32Column extends Column<number> {
  constructor() {
    super((size) => new Int32Array(size));
  }
}

const INT64_MIN = -(1n << 63n);

/**
 * Exact bigints: 8 bytes each while they fit a signed 64-bit integer (fp9 money up to ±9.2 billion),
 * the rare larger one kept aside, so no value is ever cut.
 */
export class BigIntColumn {
  readonly #values = new Column<bigint>((size) => new BigInt64Array(size));
  /** Values outside int64, by index; their slot holds INT64_MIN, which is never stored there itself. */
  readonly #wide = new Map<number, bigint>();

  get length(): number {
    return this.#values.length;
  }

  push(value: bigint): void {
    if (value > INT64_MIN && BigInt.asIntN(64, value) === value) this.#values.push(value);
    else {
      this.#wide.set(this.#values.length, value);
      this.#values.push(INT64_MIN);
    }
  }

  get(index: number): bigint {
    const v = this.#values.get(index);
    return v === INT64_MIN ? this.#wide.get(index)! : v;
  }
}
