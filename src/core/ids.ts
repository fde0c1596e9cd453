import * as crypto from 'node:crypto';

/** A random v4 UUID (live ids, generated idempotency keys). */
export function newId(): string {
  return crypto.randomUUID();
}

/**
 * A UUID-shaped id derived from a seed and a counter, so a deterministic component (the local engine,
 * a seeded replay) hands out the same ids for the same inputs.
 */
export class SeededIds {
  readonly #seed: string;
  #counter = 0;
  constructor(seed: string) {
    this.#seed = seed;
  }
  next(): string {
    this.#counter += 1;
    return uuidFromString(`${this.#seed}:${this.#counter}`);
  }
}

/** A stable UUID-shaped string (version nibble 5 style) from any text. */
export function uuidFromString(text: string): string {
  const h = sha1Hex(text);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type DigestEncoding = 'hex' | 'base64url';
type OneShotHash = (algorithm: string, data: string, encoding: DigestEncoding) => string;
/** Node's one-shot `crypto.hash` (20.12 and later): a third of a Hash object's cost for a short text. */
const oneShot = (crypto as { hash?: OneShotHash }).hash;

/** The `algorithm` digest of `text` (UTF-8) in `encoding`, as a Hash object gives it. */
export function digestText(algorithm: 'sha1' | 'sha256', text: string, encoding: DigestEncoding): string {
  return oneShot !== undefined ? oneShot(algorithm, text, encoding) : crypto.createHash(algorithm).update(text).digest(encoding);
}

/** The SHA-1 of `text` in hex. A backtest derives an id from its seed and a counter for every order and intent. */
export function sha1Hex(text: string): string {
  return digestText('sha1', text, 'hex');
}
