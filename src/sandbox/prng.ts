/**
 * A small seeded pseudo-random generator (sfc32 seeded through a string hash), so a sandbox run with
 * the same seed makes the same choices: the random walk of prices and every injected fault.
 * Not for cryptography; `Math.random` is never used by the sandbox.
 */
export class Sfc32 {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: string | number) {
    const [a, b, c, d] = hashSeed(String(seed));
    this.#a = a;
    this.#b = b;
    this.#c = c;
    this.#d = d;
    // The first outputs of sfc32 still carry the seed's structure; skip them.
    for (let i = 0; i < 12; i += 1) this.nextUint32();
  }

  /** An unsigned 32-bit integer. */
  nextUint32(): number {
    const a = this.#a;
    const b = this.#b;
    const c = this.#c;
    const d = this.#d;
    const t = (((a + b) | 0) + d) | 0;
    this.#d = (d + 1) | 0;
    this.#a = b ^ (b >>> 9);
    this.#b = (c + (c << 3)) | 0;
    const rotated = (c << 21) | (c >>> 11);
    this.#c = (rotated + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1): for probabilities and delays, never for money. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [0, n). */
  nextInt(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`SeededRandom.nextInt: n must be a positive integer, got ${n}`);
    return Math.floor(this.nextFloat() * n);
  }

  /** True with probability `p` (0..1). Always draws one number, so the sequence does not depend on `p`. */
  chance(p: number): boolean {
    return this.nextFloat() < p;
  }

  /** An independent generator for one purpose, derived from this seed and a label. */
  static derive(seed: string | number, label: string): Sfc32 {
    return new Sfc32(`${String(seed)}/${label}`);
  }
}

/** cyrb128: four 32-bit words from a string. */
function hashSeed(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i += 1) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

// Under the name the sandbox knows it by; the class's own name is one no other module's class has (the
// optimizer's generator, public as propbot's `SeededRandom`, has that one), as the build's single bundle
// needs (scripts/bundle.ts).
export { Sfc32 as SeededRandom };
