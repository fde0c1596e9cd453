/**
 * A strategy's small persisted key-value state (a last signal, a counter, a cooldown end). Values are
 * JSON: what goes in comes out as JSON would bring it back (a Decimal comes back as its string), in
 * memory exactly as from the sqlite store, so a strategy behaves the same in a test and after a restart.
 * The interface is synchronous on purpose: a store loads a strategy's keys before it starts and
 * writes behind.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface StrategyState {
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  /** Store a JSON-serialisable value (`undefined` is refused: use `delete`). */
  set(key: string, value: unknown): void;
  delete(key: string): void;
  keys(): string[];
}

/** Hands each strategy (by name and account) its own state. The store implements it with sqlite. */
export interface StrategyStateStore {
  stateFor(strategy: string, accountId: string): StrategyState;
}

/** Turn a value into its JSON form, refusing what JSON can not hold (functions, NaN, cycles…). */
export function toJsonValue(key: string, value: unknown): JsonValue {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`strategy state "${key}": value is not JSON-serialisable: ${(error as Error).message}`);
  }
  if (text === undefined) throw new TypeError(`strategy state "${key}": a ${typeof value} is not JSON-serialisable`);
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`strategy state "${key}": ${value} is not JSON-serialisable`);
  }
  return JSON.parse(text) as JsonValue;
}

export class MemoryStrategyState implements StrategyState {
  readonly #values = new Map<string, string>();

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const text = this.#values.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  set(key: string, value: unknown): void {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('strategy state: key must be a non-empty string');
    if (value === undefined) throw new TypeError(`strategy state "${key}": undefined is not storable; use delete()`);
    this.#values.set(key, JSON.stringify(toJsonValue(key, value)));
  }

  delete(key: string): void {
    this.#values.delete(key);
  }

  keys(): string[] {
    return [...this.#values.keys()].sort();
  }
}

export class MemoryStateStore implements StrategyStateStore {
  readonly #states = new Map<string, MemoryStrategyState>();

  stateFor(strategy: string, accountId: string): StrategyState {
    const key = `${strategy}\u0000${accountId}`;
    let state = this.#states.get(key);
    if (!state) {
      state = new MemoryStrategyState();
      this.#states.set(key, state);
    }
    return state;
  }
}
